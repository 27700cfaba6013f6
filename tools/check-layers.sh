#!/bin/sh
# The layering rule of Documentation/design.md: product code (rtrs/ and
# rnbd/, outside their tests and the abstraction folders below) reaches the
# kernel only through the abstraction layer (cxxrt/, rtrs/ib/, kernel/block/),
# never by calling a C boundary function (kapi_*, rnbd_kapi_*, ...) itself.
# The calls not yet moved behind a C++ type are listed with their count in
# tools/layers-allow.txt; a file may make no more than its allowance (none
# if unlisted), so the list only shrinks.
# Usage: tools/check-layers.sh [TOP]   Prints one line; exit 1 on a violation.
top=${1:-$(cd "$(dirname "$0")/.." && pwd)}
cd "$top" || exit 2
allow=tools/layers-allow.txt
# Abstraction folders inside rtrs/ and rnbd/: C++ types over the boundary.
abstraction='rtrs/ib|kernel/block'
over=
total=0
for file in $(find rtrs rnbd \( -name '*.cpp' -o -name '*.hpp' \) | grep -vE "/tests/|^($abstraction)/" | sort); do
    count=$(grep -oE '[a-z_]*kapi_[a-z0-9_]+ *\(' "$file" | wc -l)
    count=$((count + 0))
    [ "$count" = 0 ] && continue
    total=$((total + count))
    allowed=$(awk -v file="$file" '$1 == file { print $2 }' "$allow")
    [ "$count" -le "${allowed:-0}" ] || over="$over $file:$count(allowed ${allowed:-0})"
done
if [ -n "$over" ]; then
    echo "product code calls the C boundary directly:$over"
    grep -nE '[a-z_]*kapi_[a-z0-9_]+ *\(' $(echo "$over" | tr ' ' '\n' | sed -n 's/:.*//p') | sed 's/^/  /' | head -20
    exit 1
fi
echo "product code calls the C boundary only where tools/layers-allow.txt still allows it ($total calls left)"
