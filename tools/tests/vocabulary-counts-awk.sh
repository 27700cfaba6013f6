#!/usr/bin/env bash
# Host test of tools/vocabulary-counts.sh: on a small tree with one of each
# measure planted (and look-alikes that must not count: a comment, a string,
# a parameter, a local, a function pointer, a boundary file, a test), the
# counts are the planted ones, and on this tree and that one every awk
# (mawk, gawk, busybox awk) gives the same --list. An awk that is not
# installed is a SKIP. TAP output; exit 1 if any case fails.
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
counts=$top/tools/vocabulary-counts.sh
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

tree=$tmp/tree
mkdir -p "$tree/kernel/ib" "$tree/rtrs/client" "$tree/rtrs/tests/host"
cat > "$tree/kernel/ib/handle.hpp" <<'EOF'
// A void* raw_; in a comment is no member.
namespace ib {
using Handler = void (*)(void* owner);
struct Plain {
    void (*reaped)(void* context) = nullptr;
    void* context = nullptr;
};
class Handle {
public:
    explicit Handle(void* raw) : raw_(raw) {}
    void* raw() const { return raw_; }
    void* find(int i)
    {
        void* local = nullptr;
        return i ? local : raw_;
    }

private:
    void* raw_;
    const void* braced_{nullptr};
};
enum class Kind { kA, kB };
}  // namespace ib
EOF
{
    echo '// __atomic_load_n in a comment, allocate_array too'
    echo 'const char* text = "__atomic_ // allocate_array";'
    echo 'int load(int* p) { return __atomic_load_n(p, __ATOMIC_RELAXED); }'
    echo 'int* make() { return allocate_array<int>(4); }'
    echo 'void drop(int* p) { free_array(p); }'
    echo 'bool check(const char *&reason, const char* ok);'
    echo 'long body()'
    echo '{'
    for i in $(seq 1 80); do echo "    // line $i"; done
    echo '    return 0;'
    echo '}'
    echo 'long short_body() { return 1; }'
} > "$tree/rtrs/client/rtrs-clt-thing.cpp"
echo 'int boundary(int* p) { return __atomic_load_n(p, 0); }' > "$tree/rtrs/client/kapi-thing.c"
echo 'int tested(int* p) { return __atomic_load_n(p, 0); }' > "$tree/rtrs/tests/host/test_thing.cpp"

expected='void-members-kernel-ib 3
atomic-builtins 1
allocate-array 2
functions-over-80-lines 1
const-char-ref-out 1'

awks=(mawk gawk busybox)
echo "1..$(( ${#awks[@]} * 2 ))"
n=0 failed=0
for awk_name in "${awks[@]}"; do
    shim=$tmp/awk-$awk_name
    mkdir -p "$shim"
    case $awk_name in
        busybox) command -v busybox >/dev/null && busybox awk 'BEGIN {}' 2>/dev/null &&
            printf '#!/bin/sh\nexec busybox awk "$@"\n' > "$shim/awk" ;;
        *) [ -x "/usr/bin/$awk_name" ] && printf '#!/bin/sh\nexec /usr/bin/%s "$@"\n' "$awk_name" > "$shim/awk" ;;
    esac
    if [ ! -f "$shim/awk" ]; then
        n=$((n + 1)); echo "ok $n - planted counts with $awk_name # SKIP not installed"
        n=$((n + 1)); echo "ok $n - same list as mawk on this tree with $awk_name # SKIP not installed"
        continue
    fi
    chmod +x "$shim/awk"
    n=$((n + 1))
    got=$(PATH=$shim:$PATH sh "$counts" "$tree" 2>&1)
    if [ "$got" = "$expected" ]; then
        echo "ok $n - planted counts with $awk_name"
    else
        echo "not ok $n - planted counts with $awk_name"
        diff <(echo "$expected") <(echo "$got") | sed 's/^/#   /'
        PATH=$shim:$PATH sh "$counts" --list "$tree" 2>&1 | sed 's/^/#   /'
        failed=$((failed + 1))
    fi
    n=$((n + 1))
    PATH=$shim:$PATH sh "$counts" --list "$top" > "$tmp/list-$awk_name" 2>&1
    [ -f "$tmp/list-mawk" ] || cp "$tmp/list-$awk_name" "$tmp/list-mawk"
    if cmp -s "$tmp/list-mawk" "$tmp/list-$awk_name"; then
        echo "ok $n - same list as mawk on this tree with $awk_name ($(grep -c '^[^ ]' "$tmp/list-$awk_name") measures)"
    else
        echo "not ok $n - the list differs from mawk's on this tree with $awk_name"
        diff "$tmp/list-mawk" "$tmp/list-$awk_name" | head -20 | sed 's/^/#   /'
        failed=$((failed + 1))
    fi
done
echo "# $((n - failed)) passed, $failed failed"
[ $failed = 0 ]
