#!/usr/bin/env bash
# scripts/long_functions.py on known cases: functions of known length (free, member, template,
# constructors with initializer lists (braces too), with lambdas, braces in strings and comments, raw
# strings), and what is no function (namespace, class, initializer, control statement).
# Usage: long_functions_test.sh PATH/TO/long_functions.py
set -euo pipefail
script=$1
dir=$(mktemp -d "${TMPDIR:-/tmp}/long-functions.XXXXXX")
trap 'rm -rf "$dir"' EXIT

body() {  # N statement lines
  for ((i = 0; i < $1; ++i)); do echo "  x += $i;  // { not a brace"; done
}
{
  echo 'namespace a {'
  echo 'struct S {'
  echo '  int member(int y) const {'        # line 3, 8 lines
  echo '    int x = 0;'
  body 5
  echo '  }'
  echo '};'
  echo 'const int table[] = {1, 2, 3};'
  echo 'template <typename T>'
  echo 'T free_function(T x,'                # from the template line 13, 15 lines
  echo '                T y) {'
  echo '  auto f = [&](int z) { return z; };'
  echo '  const char* s = "}}}";'
  echo '  const char* r = R"(}'
  echo '  })";'
  body 6
  echo '  return x;'
  echo '}'
  echo 'S::S(int v) : v_(v), w_(0) {'        # line 28, 4 lines
  echo '  if (v) {'
  echo '  }'
  echo '}'
  echo 'S::S() : v_{1},'                      # line 32, 5 lines
  echo '          w_{2} {'
  echo '  int y{3};'
  echo '  y += 1;'
  echo '}'
  echo '}  // namespace a'
} > "$dir/known.cc"

out=$(python3 "$script" --limit 3 "$dir/known.cc" || true)
expected="$dir/known.cc:13: free_function: 15 lines
$dir/known.cc:3: member: 8 lines
$dir/known.cc:32: S::S: 5 lines
$dir/known.cc:28: S::S: 4 lines"
if [[ "$out" != "$expected" ]]; then
  printf 'expected:\n%s\ngot:\n%s\n' "$expected" "$out" >&2
  exit 1
fi
# Under the limit: nothing printed, exit 0.
python3 "$script" --limit 15 "$dir/known.cc" > "$dir/none.txt"
[[ ! -s "$dir/none.txt" ]] || { cat "$dir/none.txt" >&2; exit 1; }
echo "long_functions.py: known cases found"
