#!/bin/sh
# The layering rules of Documentation/design.md:
# 1. Product code (common/, rtrs/ and rnbd/, outside their tests and the
#    abstraction folders below) reaches the kernel only through the
#    abstraction layer (cxxrt/, kernel/), never by naming the C boundary
#    itself: no call of a kapi_* function, no kapi_* type, no KAPI_*
#    constant. Names not yet moved behind a C++ type are listed with their
#    count in tools/layers-allow.txt; a file may use no more than its
#    allowance (none if unlisted), so the list only shrinks.
# 2. The kernel-independent core (common/, rtrs/core/, rnbd/core/: built for
#    the host too, tools/host.mk) includes no boundary header: no kapi*.h,
#    no generated kernel-size header, no <linux/...> or other kernel header.
# 3. The kernel layer (kernel/) names no product: no identifier, string or
#    include containing rnbd or rtrs (any case) outside comments. What the
#    kernel calls back into a product is the product's own C boundary and
#    reaches kernel/ as a pointer. Names not yet renamed are listed with
#    their count in tools/layers-allow.txt, like rule 1's.
# Usage: tools/check-layers.sh [TOP]   Prints one line; exit 1 on a violation.
c_code=$(cd "$(dirname "$0")" && pwd)/c-code.awk  # this script's own, whatever TOP is
top=${1:-$(cd "$(dirname "$0")/.." && pwd)}
cd "$top" || exit 2
allow=tools/layers-allow.txt
# Abstraction folders: C++ types over the boundary (a product's trace
# events are its own, over its own TRACE_EVENT boundary).
abstraction='cxxrt|kernel|rnbd/trace|rtrs/trace'
# A boundary header by name: kapi*.h or *-kapi.h (C declarations of the
# boundary), the generated kernel-size header, or a kernel header.
boundary_include='^[[:space:]]*#[[:space:]]*include[[:space:]]*[<"]([^>"]*/)?(kapi[^/>"]*\.h|[^/>"]*-kapi\.h|cxxrt-kabi\.h)[>"]|^[[:space:]]*#[[:space:]]*include[[:space:]]*<(linux|asm|asm-generic|uapi|rdma|net|trace)/'
bad_core=$(find common rtrs/core rnbd/core -type f 2>/dev/null | grep -v '/tests/' | sort |
    while read -r file; do
        if grep -qE "$boundary_include" "$file"; then echo "$file"; fi
    done)
if [ -n "$bad_core" ]; then
    echo "the kernel-independent core includes a boundary header:" $bad_core
    grep -nE "$boundary_include" $bad_core | sed 's/^/  /' | head -20
    exit 1
fi
# A boundary name: kapi_* or KAPI_*, also as the tail of a longer name.
boundary_name='[A-Za-z_]*(kapi|KAPI)_[A-Za-z0-9_]+'
over=
total=0
for file in $(find common rtrs rnbd \( -name '*.cpp' -o -name '*.hpp' \) | grep -vE "/tests/|^($abstraction)/" | sort); do
    count=$(grep -oE "$boundary_name" "$file" | wc -l)
    count=$((count + 0))
    [ "$count" = 0 ] && continue
    total=$((total + count))
    allowed=$(awk -v file="$file" '$1 == file { print $2 }' "$allow")
    [ "$count" -le "${allowed:-0}" ] || over="$over $file:$count(allowed ${allowed:-0})"
done
if [ -n "$over" ]; then
    echo "product code names the C boundary directly:$over"
    grep -nE "$boundary_name" $(echo "$over" | tr ' ' '\n' | sed -n 's/:.*//p') | sed 's/^/  /' | head -20
    exit 1
fi
# A product name: rnbd or rtrs in any case, within any word.
product_name='[A-Za-z0-9_]*([Rr][Nn][Bb][Dd]|[Rr][Tt][Rr][Ss])[A-Za-z0-9_]*'
over=
ktotal=0
code_of() {
    case $1 in
        *.mk) sed 's/#.*//' "$1" ;;
        *) awk -f "$c_code" "$1" ;;
    esac
}
for file in $(find kernel -type f \( -name '*.c' -o -name '*.h' -o -name '*.cpp' -o -name '*.hpp' -o -name '*.mk' \) | sort); do
    count=$(code_of "$file" | grep -oE "$product_name" | wc -l)
    count=$((count + 0))
    [ "$count" = 0 ] && continue
    ktotal=$((ktotal + count))
    allowed=$(awk -v file="$file" '$1 == file { print $2 }' "$allow")
    [ "$count" -le "${allowed:-0}" ] || over="$over $file:$count(allowed ${allowed:-0})"
done
if [ -n "$over" ]; then
    echo "the kernel layer names a product (rnbd, rtrs):$over"
    for file in $(echo "$over" | tr ' ' '\n' | sed -n 's/:.*//p'); do
        code_of "$file" | grep -nE "$product_name" | sed "s|^|  $file:|"
    done | head -20
    exit 1
fi
echo "the core includes no boundary header; the kernel layer names no product outside comments but where tools/layers-allow.txt still allows it ($ktotal left); product code names the C boundary (kapi_*, KAPI_*) only where tools/layers-allow.txt still allows it ($total left)"
