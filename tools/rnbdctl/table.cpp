// See table.hpp.
#include "tools/rnbdctl/table.hpp"

#include <algorithm>
#include <iterator>

#include "tools/rnbdctl/model.hpp"
#include "tools/rnbdctl/text.hpp"

namespace rnbdctl {

std::string cell(int64_t value) { return value == kUnknown ? "-" : std::to_string(value); }

std::string cell(const std::string& value) { return value.empty() ? "-" : value; }

std::string size_cell(int64_t bytes, Sizes sizes)
{
    if (bytes == kUnknown || sizes == Sizes::kBytes)
        return cell(bytes);
    if (bytes < 1024)
        return std::to_string(bytes) + " B";
    constexpr const char* kUnits[] = {"KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
    // Tenths of the unit, rounded, in integers: exact up to INT64_MAX.
    for (size_t index = 0;; ++index) {
        const unsigned __int128 unit = (unsigned __int128)1 << (10 * (index + 1));
        const unsigned __int128 tenths = ((unsigned __int128)bytes * 10 + unit / 2) / unit;
        if (tenths < 10240 || index + 1 == std::size(kUnits))
            return std::to_string(uint64_t(tenths / 10)) + "." + std::to_string(unsigned(tenths % 10)) + " " +
                   kUnits[index];
    }
}

void Table::print(FILE* out) const
{
    // Every cell may hold a name from sysfs: shown escaped (text.hpp), and
    // aligned by the characters a terminal shows, not by bytes.
    auto shown = [](const std::vector<std::string>& row) {
        std::vector<std::string> cells;
        for (const std::string& value : row)
            cells.push_back(printable(value));
        return cells;
    };
    std::vector<std::vector<std::string>> rows = {shown(headers_)};
    for (const auto& row : rows_)
        rows.push_back(shown(row));
    std::vector<size_t> widths(headers_.size());
    for (const auto& row : rows)
        for (size_t i = 0; i < row.size() && i < widths.size(); ++i)
            widths[i] = std::max(widths[i], display_width(row[i]));
    for (const auto& row : rows) {
        std::string line;
        for (size_t i = 0; i < headers_.size(); ++i) {
            const std::string value = i < row.size() ? row[i] : "";
            line += value;
            if (i + 1 < headers_.size())
                line += std::string(widths[i] - display_width(value) + 2, ' ');
        }
        fprintf(out, "%s\n", line.c_str());
    }
}

}  // namespace rnbdctl
