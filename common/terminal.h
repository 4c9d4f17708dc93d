#pragma once
// How wide the text a tool prints may be. On a terminal, tables and messages fit its width; files
// and pipes keep whole lines (--wide does the same on a terminal).

#include <cstddef>

namespace ompscale {

/// Columns that text written to `fd` should fit: the terminal's width when `fd` is a terminal,
/// else $COLUMNS when it holds a positive number, else 0 (no limit).
std::size_t output_width(int fd);

/// The width help texts wrap at: output_width(fd), at most 100 (longer lines read badly), and
/// 100 when there is no limit.
std::size_t help_width(int fd);

}  // namespace ompscale
