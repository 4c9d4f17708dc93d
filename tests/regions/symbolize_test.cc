// The symbolizer (regions/ompt/symbolize.h): capture in this process (the test binary, a dlopen'ed
// library) and offline resolution of the test applications built with gcc and clang, PIE and
// non-PIE, checked against binutils (readelf, objdump, addr2line) as independent oracles.
#include "regions/ompt/symbolize.h"

#include <dlfcn.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <link.h>
#include <sys/mman.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

namespace ompscale::regions::ompt {
namespace {

namespace fs = std::filesystem;
using ::testing::EndsWith;

// Standard output of a shell command (binutils as oracles).
std::string command_output(const std::string& command) {
  std::string output;
  FILE* pipe = popen(command.c_str(), "r");
  if (pipe == nullptr) return output;
  char buffer[4096];
  std::size_t n = 0;
  while ((n = std::fread(buffer, 1, sizeof(buffer), pipe)) > 0) output.append(buffer, n);
  pclose(pipe);
  return output;
}

// The GNU build id as `readelf -n` prints it, "" when there is none.
std::string readelf_build_id(const std::string& path) {
  const std::string notes = command_output("readelf -n '" + path + "' 2>/dev/null");
  std::smatch match;
  static const std::regex kBuildId("Build ID: ([0-9a-f]+)");
  return std::regex_search(notes, match, kBuildId) ? match[1].str() : "";
}

// The line `addr2line` gives for a link-time address, 0 when unknown.
int addr2line_line(const std::string& path, std::uint64_t offset) {
  char address[32];
  std::snprintf(address, sizeof(address), "0x%llx", static_cast<unsigned long long>(offset));
  const std::string output = command_output("addr2line -e '" + path + "' " + address);
  std::smatch match;
  static const std::regex kLine(":([0-9]+)");
  return std::regex_search(output, match, kLine) ? std::stoi(match[1].str()) : 0;
}

// The codeptr_ra OMPT reports for every parallel region of a binary, as offsets (return address
// - 1): the instructions following calls to the runtimes' fork entry points, from objdump.
std::vector<std::uint64_t> fork_call_offsets(const std::string& path) {
  const std::string listing = command_output("objdump -d --no-show-raw-insn '" + path + "'");
  static const std::regex kInstruction(R"(^\s*([0-9a-f]+):\s+(\S+)\s*(.*)$)");
  std::vector<std::uint64_t> offsets;
  bool after_fork_call = false;
  std::istringstream lines(listing);
  for (std::string line; std::getline(lines, line);) {
    std::smatch match;
    if (!std::regex_match(line, match, kInstruction)) continue;
    if (after_fork_call) offsets.push_back(std::stoull(match[1].str(), nullptr, 16) - 1);
    const std::string operands = match[3].str();
    after_fork_call =
        match[2].str() == "call" && (operands.find("<GOMP_parallel") != std::string::npos ||
                                     operands.find("<__kmpc_fork_call") != std::string::npos);
  }
  return offsets;
}

// Line number (1-based) of the first line of `file` containing `text`, 0 when none does.
int line_containing(const fs::path& file, const std::string& text) {
  std::ifstream in(file);
  int number = 0;
  for (std::string line; std::getline(in, line);) {
    ++number;
    if (line.find(text) != std::string::npos) return number;
  }
  return 0;
}

// A binary built from tests/apps, and what tests expect of it.
struct App {
  std::string label;
  std::string path;
  bool pie;
};

std::vector<App> mandelbrot_builds() {
  return {{"gcc PIE", OMPSCALE_APPS_GNU_DIR "/mandelbrot", true},
          {"gcc non-PIE", OMPSCALE_APPS_GNU_DIR "/mandelbrot_nopie", false},
          {"clang PIE", OMPSCALE_APPS_LLVM_DIR "/mandelbrot", true},
          {"clang non-PIE", OMPSCALE_APPS_LLVM_DIR "/mandelbrot_nopie", false}};
}

std::uintptr_t load_bias_of(const void* address) {
  Dl_info info;
  link_map* map = nullptr;
  if (dladdr1(address, &info, reinterpret_cast<void**>(&map), RTLD_DL_LINKMAP) == 0) return 0;
  return map->l_addr;
}

// Captures the return address of its own call, like a runtime entry point reporting codeptr_ra.
__attribute__((noinline)) bool capture_caller(CodeLocation& out, const void*& return_address) {
  return_address = __builtin_return_address(0);
  return capture_code_location(return_address, out);
}

TEST(Symbolize, CapturesAndResolvesACallSiteInThisBinary) {
  CodeLocation location;
  const void* return_address = nullptr;
  int line = 0;
  const bool captured = (line = __LINE__, capture_caller(location, return_address));
  ASSERT_TRUE(captured);

  EXPECT_EQ(location.module, fs::canonical("/proc/self/exe").string());
  EXPECT_EQ(location.build_id, readelf_build_id(location.module));
  EXPECT_EQ(location.offset,
            reinterpret_cast<std::uintptr_t>(return_address) - 1 - load_bias_of(return_address));
  EXPECT_TRUE(location.file.empty());

  std::vector<CodeLocation*> locations{&location};
  resolve_locations(locations);
  EXPECT_THAT(location.file, EndsWith("tests/regions/symbolize_test.cc"));
  EXPECT_EQ(location.line, line);
  // 101 characters qualified: over the 80 of a label, the namespaces go first.
  EXPECT_EQ(location.function, "Symbolize_CapturesAndResolvesACallSiteInThisBinary_Test::TestBody");
}

TEST(Symbolize, CapturesAndResolvesACallSiteInADlopenedLibrary) {
  const std::string library = OMPSCALE_APPS_GNU_DIR "/libompscale_symbolize_probe.so";
  void* handle = dlopen(library.c_str(), RTLD_NOW | RTLD_LOCAL);
  ASSERT_NE(handle, nullptr) << dlerror();
  using Probe = const void* (*)(int*);
  const auto probe = reinterpret_cast<Probe>(dlsym(handle, "ompscale_probe_call"));
  ASSERT_NE(probe, nullptr);
  int line = 0;
  const void* return_address = probe(&line);
  link_map* map = nullptr;
  ASSERT_EQ(dlinfo(handle, RTLD_DI_LINKMAP, &map), 0);
  ASSERT_NE(map->l_addr, 0u);  // else this would not test the bias

  CodeLocation location;
  ASSERT_TRUE(capture_code_location(return_address, location));
  EXPECT_EQ(location.module, fs::canonical(library).string());
  EXPECT_EQ(location.build_id, readelf_build_id(library));
  EXPECT_EQ(location.offset, reinterpret_cast<std::uintptr_t>(return_address) - 1 - map->l_addr);
  // The offset is the library's own address of the call: binutils agrees on the line.
  EXPECT_EQ(addr2line_line(library, location.offset), line);

  std::vector<CodeLocation*> locations{&location};
  resolve_locations(locations);
  EXPECT_THAT(location.file, EndsWith("tests/apps/probe/symbolize_probe.cc"));
  EXPECT_EQ(location.line, line);
  EXPECT_EQ(location.function, "ompscale_probe_call");
  // The module stays loaded: the symbolizer's cache refers to its program headers.
}

TEST(Symbolize, CapturesTheSameLocationFromConcurrentThreads) {
  CodeLocation reference;
  const void* return_address = nullptr;
  ASSERT_TRUE(capture_caller(reference, return_address));
  std::vector<std::thread> threads;
  std::vector<int> mismatches(4, 0);
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < 500; ++i) {
        CodeLocation location;
        if (!capture_code_location(return_address, location) ||
            location.module != reference.module || location.offset != reference.offset ||
            location.build_id != reference.build_id) {
          ++mismatches[t];
        }
      }
    });
  }
  for (std::thread& thread : threads) thread.join();
  EXPECT_THAT(mismatches, ::testing::Each(0));
}

TEST(Symbolize, AddressesOutsideLoadedObjectsAreNotCaptured) {
  CodeLocation location;
  location.module = "untouched";
  EXPECT_FALSE(capture_code_location(nullptr, location));
  void* page = mmap(nullptr, 4096, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  ASSERT_NE(page, MAP_FAILED);
  EXPECT_FALSE(capture_code_location(static_cast<char*>(page) + 16, location));
  munmap(page, 4096);
  EXPECT_EQ(location.module, "untouched");
}

// The parallel region of mandelbrot (one per binary), at the offsets the tool would record, in
// the gcc and clang builds (clang emits no .debug_aranges: the compile-unit walk), PIE and not.
TEST(Symbolize, ResolvesTheParallelRegionOfTheAppsOffline) {
  const fs::path source = fs::path(OMPSCALE_SOURCE_DIR) / "tests/apps/mandelbrot.cc";
  const int pragma_line = line_containing(source, "#pragma omp parallel for");
  const int return_line = line_containing(source, "return count;");
  ASSERT_GT(pragma_line, 0);
  ASSERT_GT(return_line, pragma_line);
  for (const App& app : mandelbrot_builds()) {
    SCOPED_TRACE(app.label);
    const std::vector<std::uint64_t> offsets = fork_call_offsets(app.path);
    ASSERT_EQ(offsets.size(), 1u) << "parallel region calls in " << app.path;
    const std::uint64_t offset = offsets[0];
    // Non-PIE code sits at its absolute address (x86-64 links at 0x400000 and up).
    EXPECT_EQ(offset >= 0x400000, !app.pie) << std::hex << offset;

    CodeLocation location;
    ASSERT_TRUE(resolve_offset(app.path, offset, location));
    EXPECT_EQ(location.module, app.path);
    EXPECT_EQ(location.offset, offset);
    EXPECT_EQ(location.build_id, readelf_build_id(app.path));
    EXPECT_EQ(location.build_id.size(), 40u);  // sha1, as ld and lld write by default
    EXPECT_THAT(location.file, EndsWith("tests/apps/mandelbrot.cc"));
    EXPECT_GE(location.line, pragma_line);
    EXPECT_LE(location.line, return_line);
    EXPECT_EQ(location.line, addr2line_line(app.path, offset));
    // The same name from both compilers, although only clang records a linkage name; clang
    // inlines the function into main and the name says where.
    EXPECT_THAT(location.function, ::testing::StartsWith("(anonymous namespace)::count_points"));
    if (location.function != "(anonymous namespace)::count_points") {
      EXPECT_THAT(location.function,
                  ::testing::MatchesRegex(".*, inlined at mandelbrot.cc:[0-9]+"));
    }
  }
}

class SymbolizeFiles : public ::testing::Test {
 protected:
  void SetUp() override {
    directory_ = fs::temp_directory_path() /
                 ("ompscale-symbolize-" + std::to_string(getpid()) + "-" +
                  ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::create_directories(directory_);
  }
  void TearDown() override { fs::remove_all(directory_); }

  // A copy of `path` in the test's directory, transformed by `strip_options` when not empty.
  std::string stripped_copy(const std::string& path, const std::string& name,
                            const std::string& strip_options) {
    const fs::path copy = directory_ / name;
    fs::copy_file(path, copy);
    if (!strip_options.empty()) {
      EXPECT_EQ(std::system(("strip " + strip_options + " '" + copy.string() + "'").c_str()), 0);
    }
    return copy.string();
  }

  fs::path directory_;
};

TEST_F(SymbolizeFiles, StrippedBinariesResolveToEmptySourceFields) {
  for (const App& app : mandelbrot_builds()) {
    SCOPED_TRACE(app.label);
    const std::vector<std::uint64_t> offsets = fork_call_offsets(app.path);
    ASSERT_EQ(offsets.size(), 1u);
    const std::string name = fs::path(app.path).filename().string() + (app.pie ? "" : "-np") +
                             (app.label.starts_with("clang") ? "-llvm" : "-gnu");

    // Without DWARF the symbol table still names the function, not the source line.
    const std::string no_debug = stripped_copy(app.path, name + "-g", "--strip-debug");
    CodeLocation location;
    EXPECT_FALSE(resolve_offset(no_debug, offsets[0], location));
    EXPECT_TRUE(location.file.empty());
    EXPECT_EQ(location.line, 0);
    EXPECT_FALSE(location.function.empty());
    EXPECT_EQ(location.build_id, readelf_build_id(app.path));  // strip keeps the notes

    const std::string no_symbols = stripped_copy(app.path, name + "-all", "--strip-all");
    EXPECT_FALSE(resolve_offset(no_symbols, offsets[0], location));
    EXPECT_TRUE(location.file.empty());
    EXPECT_EQ(location.line, 0);
    EXPECT_EQ(location.build_id, readelf_build_id(app.path));
  }
}

TEST_F(SymbolizeFiles, MissingAndMalformedFilesResolveToNothing) {
  const std::string app = OMPSCALE_APPS_LLVM_DIR "/mandelbrot";
  const std::string text = (directory_ / "not-elf").string();
  std::ofstream(text) << "not an ELF file\n";
  const std::string truncated = (directory_ / "truncated").string();
  {
    std::ifstream in(app, std::ios::binary);
    std::vector<char> head(2000);
    in.read(head.data(), static_cast<std::streamsize>(head.size()));
    std::ofstream(truncated, std::ios::binary).write(head.data(), in.gcount());
  }
  for (const std::string& path : {(directory_ / "missing").string(), text, truncated}) {
    SCOPED_TRACE(path);
    CodeLocation location;
    EXPECT_FALSE(resolve_offset(path, 0x1000, location));
    EXPECT_EQ(location.module, path);
    EXPECT_TRUE(location.file.empty());
    EXPECT_EQ(location.line, 0);
    EXPECT_TRUE(location.function.empty());
  }
}

TEST_F(SymbolizeFiles, ResolveLocationsSkipsMissingModulesAndForeignBuildIds) {
  const std::string app = OMPSCALE_APPS_GNU_DIR "/mandelbrot";
  const std::vector<std::uint64_t> offsets = fork_call_offsets(app);
  ASSERT_EQ(offsets.size(), 1u);
  const auto captured = [&](const std::string& module, const std::string& build_id) {
    CodeLocation location;
    location.module = module;
    location.build_id = build_id;
    location.offset = offsets[0];
    return location;
  };
  CodeLocation good = captured(app, readelf_build_id(app));
  CodeLocation no_build_id = captured(app, "");
  CodeLocation rebuilt = captured(app, "0123456789abcdef");
  CodeLocation missing = captured((directory_ / "gone").string(), "");
  missing.file = "stale";  // resolution clears what it cannot fill
  std::vector<CodeLocation*> locations{&good, &missing, &rebuilt, &no_build_id, nullptr};
  resolve_locations(locations);
  EXPECT_THAT(good.file, EndsWith("tests/apps/mandelbrot.cc"));
  EXPECT_GT(good.line, 0);
  EXPECT_EQ(no_build_id.line, good.line);  // no captured build id: nothing to check against
  EXPECT_TRUE(rebuilt.file.empty());
  EXPECT_EQ(rebuilt.line, 0);
  EXPECT_TRUE(rebuilt.function.empty());
  EXPECT_TRUE(missing.file.empty());
  EXPECT_EQ(missing.line, 0);
}

}  // namespace
}  // namespace ompscale::regions::ompt
