# The code of C and C++ files without their comments: /* */ (across lines)
# and // (outside strings and character constants), one output line per
# input line. Plain awk: the same with mawk, gawk and busybox awk.
#   -v strings=drop   also without the contents of strings and character
#                     constants (the quotes stay): code only
#   -v tagged=1       each line as "FILENAME<TAB>FNR<TAB>code"
# Used by tools/check-layers.sh (names in the kernel layer, strings
# included) and tools/vocabulary-counts.sh (code only, tagged).
FNR == 1 { in_block = 0; quote = "" }
{
    out = ""; line = $0; i = 1; n = length(line)
    while (i <= n) {
        c = substr(line, i, 1); two = substr(line, i, 2)
        if (in_block) {
            if (two == "*/") { in_block = 0; i += 2 } else i++
            continue
        }
        if (quote != "") {
            if (c == "\\") {
                if (strings != "drop") out = out c substr(line, i + 1, 1)
                i += 2; continue
            }
            if (c == quote) { out = out c; quote = "" }
            else if (strings != "drop") out = out c
            i++; continue
        }
        if (two == "/*") { in_block = 1; i += 2; continue }
        if (two == "//") break
        if (c == "\"" || c == "\047") quote = c
        out = out c; i++
    }
    quote = ""
    if (tagged) print FILENAME "\t" FNR "\t" out
    else print out
}
