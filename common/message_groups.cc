#include "common/message_groups.h"

#include <fmt/format.h>

#include "common/text.h"

namespace ompscale {

void MessageGroups::add(const std::string& message, std::string subject) {
  const auto [it, inserted] = index_.try_emplace(message, groups_.size());
  if (inserted) groups_.push_back({message, {}});
  groups_[it->second].subjects.push_back(std::move(subject));
}

std::string MessageGroups::render(std::size_t width, std::string_view indent,
                                  std::size_t max_subjects) const {
  const std::string deeper = std::string(indent) + "    ";
  std::string out;
  for (const Group& group : groups_) {
    const std::size_t n = group.subjects.size();
    if (n == 1) {
      out +=
          wrap(fmt::format("{}: {}", group.subjects.front(), group.message), width, indent, deeper);
      continue;
    }
    out += wrap(fmt::format("{} ({} {}):", group.message, n, n == 1 ? noun_ : nouns_), width,
                indent, deeper);
    const std::size_t shown = max_subjects == 0 ? n : std::min(n, max_subjects);
    std::string list;
    for (std::size_t i = 0; i < shown; ++i) {
      if (i > 0) list += i + 1 == shown && shown == n ? " and " : ", ";
      list += group.subjects[i];
    }
    if (shown < n) list += fmt::format(" and {} more", n - shown);
    out += wrap(list, width, std::string(indent) + "  ", deeper);
  }
  return out;
}

}  // namespace ompscale
