// Whole-file reads and atomic writes of ordinary files (rnbdtab, the
// metrics textfile); sysfs goes through sysfs.hpp instead.
#pragma once

#include <string>

namespace rnbdctl {

// 0, or the errno of the failed open/read.
int read_file(const std::string& name, std::string& text);
// The rest of an open file into `text`, then closes `fd` (also on an
// error): 0 or the read's errno. read_file and Sysfs::read open
// differently but read alike.
int read_descriptor(int fd, std::string& text);
// Written to a temporary file next to `name` (in its directory, which must
// exist), synced and renamed over it, so a reader never sees half a file.
// 0 or the errno.
int write_file_atomically(const std::string& name, const std::string& text);
// The directory part of a file name: "/etc/rnbd" of "/etc/rnbd/rnbdtab",
// "/" of "/rnbdtab", "." of "rnbdtab".
std::string directory_of(const std::string& name);

}  // namespace rnbdctl
