#pragma once
// Messages that many subjects share, said once with a count instead of once per subject:
//
//   no model: 2 thread counts (1, 2): a model needs 3 or more (168 kernels):
//     construct=barrier [all], construct=single [all], construct=for [all] and 165 more
//
// Used for the modeler's warnings and ompbench's end-of-run notes.

#include <cstddef>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace ompscale {

class MessageGroups {
 public:
  /// `noun` names one subject and `nouns` several ("kernel", "kernels").
  MessageGroups(std::string noun, std::string nouns)
      : noun_(std::move(noun)), nouns_(std::move(nouns)) {}

  void add(const std::string& message, std::string subject);
  bool empty() const { return groups_.empty(); }
  /// Distinct messages.
  std::size_t size() const { return groups_.size(); }

  /// Each message once, in order of first appearance, wrapped at `width` (0: no limit): a message
  /// of one subject as "subject: message"; one of several as "message (N nouns):" and then the
  /// subjects, at most `max_subjects` of them (0: all) and how many more.
  std::string render(std::size_t width, std::string_view indent, std::size_t max_subjects) const;

 private:
  struct Group {
    std::string message;
    std::vector<std::string> subjects;
  };
  std::string noun_, nouns_;
  std::vector<Group> groups_;
  std::unordered_map<std::string, std::size_t> index_;
};

}  // namespace ompscale
