#!/usr/bin/env python3
"""Lists the C++ functions longer than a limit (the project keeps every function outside the tests
at 120 lines or fewer; README, "Tests and fuzzing").

Usage: scripts/long_functions.py [--limit 120] [--all] [PATH ...]

PATHs are files or folders (default: the repository's C++ sources, from the repository root);
folders are searched for .cc, .cpp, .h and .hpp files. Without --all, tests/ and build folders
are left out (the rule is for code outside tests). Prints one line per function over the limit,
longest first: "FILE:LINE: NAME: N lines", where LINE is the first line of the signature and N
counts from there to the closing brace. Exits 1 when it printed any, 0 otherwise.

How it finds functions (a brace-matching scan, not a C++ parser): comments, string and character
literals (raw strings included) are blanked out; every '{' whose header (the text since the
previous ';', '{' or '}') ends in a parameter list, possibly followed by qualifiers, a trailing
return type, an initializer list or "try", and that does not stand inside another function, opens
a function body. Namespaces, classes, control statements and initializers are not functions.
Lambdas and local classes count towards the function around them. Checked on the known cases in
tests/scripts/long_functions_test.sh.
"""

import argparse
import os
import re
import sys

SOURCE_ENDINGS = (".cc", ".cpp", ".h", ".hpp")
SKIPPED_FOLDERS = {"build", ".git", "node_modules"}
CONTROL = re.compile(r"^(if|for|while|switch|catch|do|else|return)\b")
SCOPE = re.compile(r"\b(namespace|class|struct|union|enum)\b[^()]*$")
# A member initialized with braces in a constructor's initializer list: "S(int v) : v_{v}".
CONSTRUCTOR_BRACE_INIT = re.compile(r"\)\s*:[^:;]*\w$")


def blank_out(text):
    """`text` with comments and literals replaced by spaces (newlines kept)."""
    out = []
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
            out.append(" " * (j - i))
            i = j
        elif text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            out.append(re.sub(r"[^\n]", " ", text[i:j]))
            i = j
        elif c == "R" and text.startswith('R"', i) and (i == 0 or not (text[i - 1].isalnum() or text[i - 1] == "_")):
            open_paren = text.find("(", i + 2)
            delimiter = text[i + 2:open_paren]
            j = text.find(")" + delimiter + '"', open_paren)
            j = n if j < 0 else j + len(delimiter) + 2
            out.append('""' + re.sub(r"[^\n]", " ", text[i + 2:j]))
            i = j
        elif c in "\"'":
            # A digit separator (1'000) is no character literal.
            if c == "'" and i > 0 and text[i - 1].isalnum() and i + 1 < n and text[i + 1].isalnum():
                out.append(" ")
                i += 1
                continue
            j = i + 1
            while j < n and text[j] != c and text[j] != "\n":
                j += 2 if text[j] == "\\" else 1
            j = min(j + 1, n)
            out.append(c + " " * (j - i - 2) + c if j - i >= 2 else c)
            i = j
        else:
            out.append(c)
            i += 1
    return "".join(out)


def strip_preprocessor(text):
    """Preprocessor lines (with their continuations) blanked out."""
    lines = text.split("\n")
    continued = False
    for k, line in enumerate(lines):
        if continued or line.lstrip().startswith("#"):
            continued = line.rstrip().endswith("\\")
            lines[k] = ""
    return "\n".join(lines)


def is_function_header(header):
    """Whether the text before a '{' (at namespace or class scope) is a function's signature."""
    h = " ".join(header.split())
    if not h or "(" not in h:
        return False
    if SCOPE.search(h.split("(")[0]) and not h.rstrip().endswith(")"):
        return False
    if CONTROL.match(h) or h.startswith("= ") or h.endswith("="):
        return False
    # A constructor's initializer list: cut at the last ") :" before the members.
    initializers = re.search(r"\)\s*:(?!:)", h)
    if initializers:
        h = h[: initializers.start() + 1]
    h = re.sub(r"\s*\btry$", "", h)
    # Qualifiers and a trailing return type after the parameter list.
    h = re.sub(r"\)(\s*(const|noexcept(\([^()]*\))?|override|final|volatile|&&?|mutable|"
               r"requires\b.*|->\s*[^{}]*))*\s*$", ")", h)
    if not h.endswith(")"):
        return False
    # "x = f(...)" and "T x{...}" initializers are no functions; "operator=(...)" is.
    before = h[: h.find("(")]
    return "=" not in before.replace("operator=", "").replace("operator==", "") \
        .replace("operator<=", "").replace("operator>=", "").replace("operator!=", "")


def function_name(header):
    h = " ".join(header.split())
    before = h[: h.find("(")].strip()
    return before.split(" ")[-1] if before else "?"


def functions(path):
    """(first line, last line, name) of each function defined in the file at `path`."""
    with open(path, encoding="utf-8", errors="replace") as f:
        text = strip_preprocessor(blank_out(f.read()))
    found = []
    stack = []  # per open brace: True when it is (inside) a function body
    header_start = 0
    line = 1
    header_first_line = None
    for i, c in enumerate(text):
        if c == "\n":
            line += 1
            continue
        if c in ";{}":
            if c == "{":
                inside = bool(stack) and stack[-1][0]
                header = text[header_start:i]
                if not inside and CONSTRUCTOR_BRACE_INIT.search(" ".join(header.split())):
                    stack.append((False, None, None, "init"))  # "S() : a_{1} {": the header goes on
                    continue
                if not inside and is_function_header(header):
                    stack.append((True, header_first_line or line, function_name(header), True))
                else:
                    stack.append((inside, None, None, False))
            elif c == "}" and stack:
                _, first, name, opens = stack.pop()
                if opens == "init":
                    continue
                if opens:
                    found.append((first, line, name))
            header_start = i + 1
            header_first_line = None
            continue
        if header_first_line is None and not c.isspace():
            header_first_line = line
    return found


def source_files(paths, include_tests):
    for root in paths:
        if os.path.isfile(root):
            yield root
            continue
        for folder, subfolders, files in os.walk(root):
            subfolders[:] = sorted(
                d for d in subfolders
                if d not in SKIPPED_FOLDERS and not d.startswith("build")
                and (include_tests or os.path.relpath(os.path.join(folder, d), root) != "tests"))
            for name in sorted(files):
                if name.endswith(SOURCE_ENDINGS):
                    yield os.path.normpath(os.path.join(folder, name))


def main():
    parser = argparse.ArgumentParser(description="C++ functions longer than a limit")
    parser.add_argument("--limit", type=int, default=120, help="most lines allowed (120)")
    parser.add_argument("--all", action="store_true", help="tests/ too")
    parser.add_argument("paths", nargs="*", default=["."])
    args = parser.parse_args()
    long = []
    for path in source_files(args.paths, args.all):
        for first, last, name in functions(path):
            length = last - first + 1
            if length > args.limit:
                long.append((length, path, first, name))
    for length, path, first, name in sorted(long, key=lambda x: (-x[0], x[1], x[2])):
        print(f"{path}:{first}: {name}: {length} lines")
    return 1 if long else 0


if __name__ == "__main__":
    sys.exit(main())
