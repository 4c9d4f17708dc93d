#pragma once
// Where the running program lives, so that it finds the files installed beside it (workers, the
// OMPT tool, libomp, platform descriptions) in a build tree, an install and a relocatable bundle.

#include <filesystem>
#include <string>

namespace ompscale {

/// The running program's file. Normally /proc/self/exe; but when that is a dynamic loader (the
/// bundle's launchers run every program as `ld-linux-x86-64.so.2 --argv0 PROGRAM FILE ...`, so
/// that it needs no loader or C library on the machine), the program is the one the loader was
/// told it runs: its argv[0]. Empty when /proc/self/exe cannot be read.
std::filesystem::path executable_path();

/// executable_path()'s directory (empty when unknown).
std::filesystem::path executable_directory();

/// True for a file name of a glibc dynamic loader ("ld-linux-x86-64.so.2", "ld-linux.so.2",
/// "ld-2.36.so", "ld64.so.2").
bool is_dynamic_loader_name(const std::string& file_name);

}  // namespace ompscale
