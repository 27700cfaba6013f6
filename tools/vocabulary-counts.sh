#!/bin/sh
# How far product code is from one vocabulary (Documentation/design.md):
# one line per measure, "name count", over the kernel modules' code outside
# cxxrt/ (which defines the vocabulary), outside the C boundary files
# (kapi*.c/.h, *-mod.c, *-export.c: C over Linux headers) and outside tests.
#   void-members-kernel-ib   void* data members of kernel/ib's public types
#                            (its *.hpp): kernel objects as typed handles
#   atomic-builtins          lines with a raw __atomic_* builtin (cxxrt::Atomic)
#   allocate-array           lines with allocate_array/free_array (cxxrt::Array)
#   functions-over-80-lines  C++ functions longer than 80 lines, from the
#                            line of the name to the closing brace
#   const-char-ref-out       const char*& parameters (a reason travels in a Result)
# Comments and the contents of strings do not count. tools/lint.sh compares the counts with
# tools/vocabulary-baseline.txt.
# Usage: tools/vocabulary-counts.sh [--list] [TOP]
#   --list  each count, then where each one is ("  file:line: code").
# POSIX sh and awk (mawk, gawk, busybox); universal-ctags for the functions.
list=0
if [ "${1:-}" = --list ]; then list=1; shift; fi
c_code=$(cd "$(dirname "$0")" && pwd)/c-code.awk  # this script's own, whatever TOP is
top=${1:-$(cd "$(dirname "$0")/.." && pwd)}
cd "$top" || exit 2
command -v ctags >/dev/null 2>&1 && ctags --version 2>/dev/null | grep -q 'Universal Ctags' ||
    { echo "vocabulary-counts: needs universal-ctags (apt-get install universal-ctags)" >&2; exit 2; }

files=$(find common kernel rnbd rtrs -type f 2>/dev/null \( -name '*.cpp' -o -name '*.hpp' -o -name '*.c' -o -name '*.h' \) \
    -not -path '*/tests/*' -not -name 'kapi*' -not -name '*-mod.c' -not -name '*-export.c' | LC_ALL=C sort)
cxx_files=$(printf '%s\n' $files | grep -E '\.(cpp|hpp)$')
ib_headers=$(printf '%s\n' $files | grep -E '^kernel/ib/[^/]*\.hpp$')

# Every file's code without its comments (/* */ across lines, // outside
# strings and character constants) and without the contents of its strings
# and character constants, as "file<TAB>line<TAB>code" lines.
code() {
    [ $# = 0 ] && return
    awk -v strings=drop -v tagged=1 -f "$c_code" "$@"
}

# The lines of `code` whose code matches the extended regular expression $1,
# as "file:line: code".
matching() {
    awk -F '\t' -v re="$1" '$3 ~ re { sub(/^[ \t]+/, "", $3); print $1 ":" $2 ": " $3 }'
}

# void* data members: declarations ending in ";" directly inside a class,
# struct or union body, of a void pointer, with no parenthesis (a function,
# a function pointer or a call is not one). Brace kinds are kept on a stack:
# a body whose head names class/struct/union (not enum) holds members, a
# brace after a member's name (void* p{...}) is its initializer.
void_members() {
    code $ib_headers | awk -F '\t' '
    function kind_of(head) {
        if (head ~ /(^|[^A-Za-z0-9_])enum([^A-Za-z0-9_]|$)/) return "code"
        if (head ~ /(^|[^A-Za-z0-9_])(class|struct|union)([^A-Za-z0-9_]|$)/ && head !~ /[()]/) return "type"
        if (head ~ /(^|[^A-Za-z0-9_])(namespace|extern)([^A-Za-z0-9_]|$)/) return "scope"
        if (stack[depth] == "type" && head !~ /[()=]/ && head ~ /[A-Za-z0-9_]+[ \t]*$/) return "init"
        return "code"
    }
    $1 != file { file = $1; depth = 0; stack[0] = "scope"; statement = ""; start = 0 }
    {
        text = $3; n = length(text)
        for (i = 1; i <= n; i++) {
            c = substr(text, i, 1)
            if (c == "{") {
                kind = kind_of(statement)
                stack[++depth] = kind
                if (kind == "init") statement = statement c
                else { statement = ""; start = 0 }
            } else if (c == "}") {
                kind = stack[depth]
                if (depth > 0) depth--
                if (kind == "init") statement = statement c
                else { statement = ""; start = 0 }
            } else if (c == ";") {
                if (stack[depth] == "type" && statement ~ /void[ \t]*\*/ && statement !~ /[()]/) {
                    sub(/^[ \t]*((public|private|protected)[ \t]*:)?[ \t]*/, "", statement)
                    print file ":" start ": " statement ";"
                }
                statement = ""; start = 0
            } else {
                if (start == 0 && c !~ /[ \t]/) start = $2
                statement = statement c
            }
        }
        statement = statement " "
    }'
}

# C++ functions over 80 lines, as "file:line: name (N lines)".
long_functions() {
    [ -n "$cxx_files" ] || return
    # shellcheck disable=SC2086
    ctags -x --_xformat='%F %n %{end} %{scope} %N' --kinds-c++=f --fields=+ne --language-force=c++ $cxx_files |
        awk '$3 - $2 + 1 > 80 {
            name = ($5 == "") ? $4 : $4 "::" $5
            gsub(/__anon[0-9a-f]+::/, "", name)
            print $1 ":" $2 ": " name " (" $3 - $2 + 1 " lines)"
        }' | LC_ALL=C sort -t: -k1,1 -k2,2n
}

measure() {
    case $1 in
        void-members-kernel-ib) void_members ;;
        atomic-builtins) code $files | matching '__atomic_' ;;
        allocate-array) code $files | matching '(^|[^A-Za-z0-9_])(allocate_array|free_array)([^A-Za-z0-9_]|$)' ;;
        functions-over-80-lines) long_functions ;;
        const-char-ref-out) code $files | matching 'const[ \t]+char[ \t]*[*][ \t]*&' ;;
    esac
}

measures='void-members-kernel-ib atomic-builtins allocate-array functions-over-80-lines const-char-ref-out'
for name in $measures; do
    where=$(measure "$name")
    if [ -z "$where" ]; then count=0; else count=$(printf '%s\n' "$where" | wc -l); fi
    echo "$name $((count + 0))"
    [ $list = 1 ] && [ -n "$where" ] && printf '%s\n' "$where" | sed 's/^/  /'
done
exit 0
