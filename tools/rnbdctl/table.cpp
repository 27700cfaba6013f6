// See table.hpp.
#include "tools/rnbdctl/table.hpp"

#include "tools/rnbdctl/model.hpp"

namespace rnbdctl {

std::string cell(int64_t value) { return value == kUnknown ? "-" : std::to_string(value); }

std::string cell(const std::string& value) { return value.empty() ? "-" : value; }

void Table::print(FILE* out) const
{
    std::vector<size_t> widths(headers_.size());
    for (size_t i = 0; i < headers_.size(); ++i)
        widths[i] = headers_[i].size();
    for (const auto& row : rows_)
        for (size_t i = 0; i < row.size() && i < widths.size(); ++i)
            widths[i] = std::max(widths[i], row[i].size());
    auto print_row = [&](const std::vector<std::string>& row) {
        std::string line;
        for (size_t i = 0; i < headers_.size(); ++i) {
            const std::string value = i < row.size() ? row[i] : "";
            line += value;
            if (i + 1 < headers_.size())
                line += std::string(widths[i] - value.size() + 2, ' ');
        }
        fprintf(out, "%s\n", line.c_str());
    };
    print_row(headers_);
    for (const auto& row : rows_)
        print_row(row);
}

}  // namespace rnbdctl
