// Column-aligned text tables for `-o table` (the default): a header row in
// capitals, then one row per object; "-" where sysfs gave no value. Cells
// are printed through printable() (text.hpp): a name from sysfs cannot
// reach the terminal as a control sequence.
#pragma once

#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

namespace rnbdctl {

class Table {
public:
    explicit Table(std::vector<std::string> headers) : headers_(std::move(headers)) {}
    void add(std::vector<std::string> row) { rows_.push_back(std::move(row)); }
    void print(FILE* out) const;

private:
    std::vector<std::string> headers_;
    std::vector<std::vector<std::string>> rows_;
};

// How tables show a number of bytes: binary units with one decimal
// ("1.0 GiB", for people; the default) or the exact number (--bytes). JSON
// and Prometheus always give the exact number.
enum class Sizes { kHuman, kBytes };

// A number, or "-" for kUnknown.
std::string cell(int64_t value);
// A number of bytes: "512 B", "1.5 KiB" ... "8.0 EiB" (rounded to the
// nearest tenth, into the next unit from 1023.95 on), or the number; "-"
// for kUnknown.
std::string size_cell(int64_t bytes, Sizes sizes);
std::string cell(const std::string& value);

}  // namespace rnbdctl
