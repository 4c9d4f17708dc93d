#include "platforms/platform.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "common/error.h"

namespace ompscale::platforms {
namespace {

namespace fs = std::filesystem;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsSupersetOf;
using ::testing::Not;

const fs::path kShippedDir = fs::path(OMPSCALE_SOURCE_DIR) / "platforms" / "descriptions";

std::vector<std::string> specs(const Platform& platform) {
  std::vector<std::string> result;
  for (const ThreadClass& thread_class : platform.classes) result.push_back(thread_class.spec());
  return result;
}

// Each test writes its description files into a fresh directory that is removed afterwards.
class DescriptionFileTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    dir_ = fs::temp_directory_path() /
           ("ompscale-platforms-" + std::to_string(::getpid()) + "-" + info->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  std::string write(const std::string& file_name, const std::string& text) {
    const fs::path path = dir_ / file_name;
    std::ofstream(path) << text;
    return path.string();
  }

  // The InputError that loading `text` raises; fails the test when there is none.
  InputError load_error(const std::string& file_name, const std::string& text) {
    const std::string path = write(file_name, text);
    try {
      load_platform(path);
    } catch (const InputError& error) {
      EXPECT_EQ(error.file(), path);
      EXPECT_THAT(error.what(), HasSubstr(file_name));
      return error;
    }
    ADD_FAILURE() << "no InputError for " << file_name << ":\n" << text;
    return InputError(path, 0, "none");
  }

  fs::path dir_;
};

constexpr const char* kValid = R"({
  "name": "tiny",
  "description": "two sockets of four cores",
  "boards": 1,
  "sockets_per_board": 2,
  "cores_per_socket": 4,
  "threads_per_core": 2,
  "numa_nodes": 2,
  "classes": ["po2", "odd", "even", "8x", "linear", "mine=3,5,7", "steps=12+24k"]
}
)";

TEST(ShippedPlatforms, ListsThePapersMachines) {
  EXPECT_THAT(shipped_platforms(), IsSupersetOf({"bluegene-q", "rwth-bcs", "xeon-phi-7120"}));
}

TEST(ShippedPlatforms, RwthBcsHas128Cores) {
  const Platform bcs = find_platform("rwth-bcs");
  EXPECT_EQ(bcs.name, "rwth-bcs");
  EXPECT_EQ(bcs.boards, 4);
  EXPECT_EQ(bcs.sockets(), 16);
  EXPECT_EQ(bcs.cores(), 128);
  EXPECT_EQ(bcs.threads_per_core, 2);
  EXPECT_EQ(bcs.hardware_threads(), 256);
  EXPECT_EQ(bcs.numa_nodes, 16);
  EXPECT_THAT(bcs.description, HasSubstr("X7550"));
  EXPECT_THAT(specs(bcs), ElementsAre("po2", "even", "odd", "8x", "linear"));
}

TEST(ShippedPlatforms, XeonPhiHas244HardwareThreads) {
  const Platform phi = find_platform("xeon-phi-7120");
  EXPECT_EQ(phi.cores(), 61);
  EXPECT_EQ(phi.threads_per_core, 4);
  EXPECT_EQ(phi.hardware_threads(), 244);
  EXPECT_EQ(phi.numa_nodes, 1);
  EXPECT_THAT(specs(phi), ElementsAre("po2", "8x", "linear"));
}

TEST(ShippedPlatforms, BlueGeneQHas64HardwareThreads) {
  const Platform bgq = find_platform("bluegene-q");
  EXPECT_EQ(bgq.sockets(), 1);
  EXPECT_EQ(bgq.cores(), 16);
  EXPECT_EQ(bgq.hardware_threads(), 64);
  EXPECT_THAT(specs(bgq), ElementsAre("po2", "linear"));
}

TEST(ShippedPlatforms, EveryShippedFileLoadsAndItsNameMatchesTheFile) {
  for (const std::string& name : shipped_platforms()) {
    const Platform platform = find_platform(name);
    EXPECT_EQ(platform.name, name);
    EXPECT_FALSE(platform.description.empty()) << name;
    EXPECT_FALSE(platform.classes.empty()) << name;
  }
}

TEST(FindPlatform, AcceptsAPath) {
  const Platform phi = find_platform((kShippedDir / "xeon-phi-7120.json").string());
  EXPECT_EQ(phi.hardware_threads(), 244);
}

TEST(FindPlatform, UnknownNameListsTheShippedNames) {
  try {
    find_platform("no-such-machine");
    FAIL() << "no error";
  } catch (const UsageError& error) {
    EXPECT_THAT(error.what(), HasSubstr("no-such-machine"));
    EXPECT_THAT(error.what(), HasSubstr("rwth-bcs"));
    EXPECT_THAT(error.what(), HasSubstr("xeon-phi-7120"));
    EXPECT_THAT(error.what(), HasSubstr("bluegene-q"));
  }
  EXPECT_THROW(find_platform("/no/such/dir/machine.json"), UsageError);
  EXPECT_THROW(find_platform(""), UsageError);
}

TEST_F(DescriptionFileTest, LoadsEveryField) {
  const Platform platform = load_platform(write("tiny.json", kValid));
  EXPECT_EQ(platform.name, "tiny");
  EXPECT_EQ(platform.description, "two sockets of four cores");
  EXPECT_EQ(platform.sockets(), 2);
  EXPECT_EQ(platform.cores(), 8);
  EXPECT_EQ(platform.hardware_threads(), 16);
  EXPECT_EQ(platform.numa_nodes, 2);
  EXPECT_THAT(specs(platform),
              ElementsAre("po2", "odd", "even", "8x", "linear", "mine=3,5,7", "steps=12+24k"));
}

TEST_F(DescriptionFileTest, OptionalFieldsTakeTheirDefaults) {
  const Platform platform = load_platform(
      write("minimal.json", R"({"name": "m", "sockets_per_board": 1, "cores_per_socket": 6})"));
  EXPECT_EQ(platform.description, "");
  EXPECT_EQ(platform.boards, 1);
  EXPECT_EQ(platform.threads_per_core, 1);
  EXPECT_EQ(platform.numa_nodes, 1);
  EXPECT_EQ(platform.cores(), 6);
  EXPECT_THAT(specs(platform), ElementsAre("po2", "even", "odd", "linear"));
}

TEST_F(DescriptionFileTest, ToJsonRoundTrips) {
  const Platform original = load_platform(write("tiny.json", kValid));
  const Platform reloaded = load_platform(write("copy.json", to_json(original)));
  EXPECT_EQ(reloaded.name, original.name);
  EXPECT_EQ(reloaded.description, original.description);
  EXPECT_EQ(reloaded.boards, original.boards);
  EXPECT_EQ(reloaded.sockets_per_board, original.sockets_per_board);
  EXPECT_EQ(reloaded.cores_per_socket, original.cores_per_socket);
  EXPECT_EQ(reloaded.threads_per_core, original.threads_per_core);
  EXPECT_EQ(reloaded.numa_nodes, original.numa_nodes);
  EXPECT_EQ(reloaded.classes, original.classes);
  EXPECT_EQ(to_json(reloaded), to_json(original));
}

TEST_F(DescriptionFileTest, ToJsonOfDetectedPlatformLoads) {
  const Platform local = detect_platform();
  const Platform reloaded = load_platform(write("local.json", to_json(local)));
  EXPECT_EQ(reloaded.cores(), local.cores());
  EXPECT_EQ(reloaded.hardware_threads(), local.hardware_threads());
  EXPECT_EQ(reloaded.classes, local.classes);
}

TEST_F(DescriptionFileTest, BadJsonReportsTheLine) {
  const InputError error = load_error("broken.json", "{\n  \"name\": \"x\",\n  \"boards\": ,\n}\n");
  EXPECT_EQ(error.line(), 3u);
  EXPECT_THAT(error.what(), HasSubstr("broken.json:3:"));
  EXPECT_THAT(error.what(), HasSubstr("invalid JSON"));
  EXPECT_THAT(error.what(), Not(HasSubstr("json.exception")));
}

// Fuzzer-found: nlohmann's out_of_range (406) escaped the input-error path.
TEST_F(DescriptionFileTest, NumberBeyondADoubleIsAnInputError) {
  const InputError error = load_error("overflow.json", "7e377");
  EXPECT_STREQ(error.what(),
               (error.file() + ":1: invalid JSON: number overflow parsing '7e377'").c_str());
  EXPECT_EQ(load_error("field.json", "{\n  \"name\": \"x\",\n  \"boards\": 1e999\n}").line(), 3u);
}

TEST_F(DescriptionFileTest, EmptyFileIsInvalidJson) {
  EXPECT_THAT(load_error("empty.json", "").what(), HasSubstr("invalid JSON"));
}

TEST_F(DescriptionFileTest, TopLevelMustBeAnObject) {
  EXPECT_THAT(load_error("array.json", "[1, 2]").what(), HasSubstr("JSON object"));
}

TEST_F(DescriptionFileTest, MissingRequiredFieldIsNamed) {
  const InputError error =
      load_error("missing.json", R"({"name": "m", "sockets_per_board": 1, "threads_per_core": 2})");
  EXPECT_THAT(error.what(), HasSubstr("missing required field \"cores_per_socket\""));
  EXPECT_THAT(error.what(), HasSubstr("positive integer"));
  EXPECT_THAT(
      load_error("noname.json", R"({"sockets_per_board": 1, "cores_per_socket": 2})").what(),
      HasSubstr("\"name\""));
}

TEST_F(DescriptionFileTest, NegativeCoresAreRejectedWithTheirLine) {
  const InputError error = load_error("negative.json",
                                      "{\n"
                                      "  \"name\": \"n\",\n"
                                      "  \"sockets_per_board\": 1,\n"
                                      "  \"cores_per_socket\": -4\n"
                                      "}\n");
  EXPECT_EQ(error.line(), 4u);
  EXPECT_THAT(error.what(), HasSubstr("\"cores_per_socket\" must be a positive integer"));
  EXPECT_THAT(error.what(), HasSubstr("got -4"));
}

TEST_F(DescriptionFileTest, NumbersMustBePositiveIntegers) {
  const std::string prefix = R"({"name": "n", "sockets_per_board": 1, "cores_per_socket": )";
  for (const char* bad : {"0", "2.5", "\"8\"", "true", "null", "4294967296", "[8]"}) {
    EXPECT_THAT(load_error("bad.json", prefix + bad + "}").what(),
                HasSubstr("\"cores_per_socket\" must be a positive integer"))
        << bad;
  }
}

TEST_F(DescriptionFileTest, UnknownClassIsRejected) {
  const InputError error =
      load_error("class.json",
                 R"({"name": "c", "sockets_per_board": 1, "cores_per_socket": 2,
                     "classes": ["po2", "po3"]})");
  EXPECT_EQ(error.line(), 2u);
  EXPECT_THAT(error.what(), HasSubstr("classes[1]"));
  EXPECT_THAT(error.what(), HasSubstr("po3"));
  EXPECT_THAT(error.what(), HasSubstr("NAME=OFFSET+STEPk"));
}

TEST_F(DescriptionFileTest, ClassListProblems) {
  const std::string prefix = R"({"name": "c", "sockets_per_board": 1, "cores_per_socket": 2, )";
  EXPECT_THAT(load_error("c1.json", prefix + R"("classes": []})").what(), HasSubstr("non-empty"));
  EXPECT_THAT(load_error("c2.json", prefix + R"("classes": "po2"})").what(), HasSubstr("array"));
  EXPECT_THAT(load_error("c3.json", prefix + R"("classes": ["po2", 8]})").what(),
              HasSubstr("classes[1] must be a string"));
  EXPECT_THAT(load_error("c4.json", prefix + R"("classes": ["po2", "PO2"]})").what(),
              HasSubstr("listed twice"));
  EXPECT_THAT(load_error("c5.json", prefix + R"("classes": ["m=0,1"]})").what(),
              HasSubstr("not positive"));
}

TEST_F(DescriptionFileTest, UnknownFieldIsRejected) {
  const InputError error =
      load_error("typo.json", R"({"name": "t", "sockets_per_board": 1, "core_per_socket": 8})");
  EXPECT_THAT(error.what(), HasSubstr("unknown field \"core_per_socket\""));
  EXPECT_THAT(error.what(), HasSubstr("cores_per_socket"));
}

TEST_F(DescriptionFileTest, WrongTypesForStrings) {
  EXPECT_THAT(
      load_error("n.json", R"({"name": 5, "sockets_per_board": 1, "cores_per_socket": 2})").what(),
      HasSubstr("\"name\" must be a string"));
  EXPECT_THAT(
      load_error("e.json", R"({"name": "", "sockets_per_board": 1, "cores_per_socket": 2})").what(),
      HasSubstr("must not be empty"));
  EXPECT_THAT(load_error("d.json", R"({"name": "d", "description": ["x"],
                                       "sockets_per_board": 1, "cores_per_socket": 2})")
                  .what(),
              HasSubstr("\"description\" must be a string"));
}

TEST_F(DescriptionFileTest, ShapeTooLargeForIntIsRejected) {
  EXPECT_THAT(load_error("huge.json", R"({"name": "h", "boards": 65536, "sockets_per_board": 65536,
                                          "cores_per_socket": 2})")
                  .what(),
              HasSubstr("hardware threads is more than"));
}

TEST_F(DescriptionFileTest, UnreadableFileNamesTheFile) {
  const std::string missing = (dir_ / "absent.json").string();
  try {
    load_platform(missing);
    FAIL() << "no error";
  } catch (const InputError& error) {
    EXPECT_EQ(error.file(), missing);
    EXPECT_THAT(error.what(), HasSubstr("absent.json"));
    EXPECT_THAT(error.what(), HasSubstr("cannot open"));
  }
  EXPECT_THROW(load_platform(dir_.string()), InputError);
}

TEST(DetectPlatform, FindsAtLeastOneCore) {
  const Platform local = detect_platform();
  EXPECT_EQ(local.name, "local");
  EXPECT_EQ(local.boards, 1);
  EXPECT_GE(local.sockets(), 1);
  EXPECT_GE(local.cores(), 1);
  EXPECT_GE(local.threads_per_core, 1);
  EXPECT_GE(local.hardware_threads(), local.cores());
  EXPECT_GE(local.numa_nodes, 1);
  EXPECT_FALSE(local.description.empty());
  EXPECT_THAT(specs(local), ElementsAre("po2", "even", "odd", "linear"));
}

}  // namespace
}  // namespace ompscale::platforms
