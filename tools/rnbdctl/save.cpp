// The file-replacement half of `save` and `server save`, which differ only
// in what they write: the file being replaced is read first and kept as
// FILE~, a file listing entries is not emptied without --force, the default
// directory (/etc/rnbd) is created on first use and no other, and the
// result is reported alike in both formats.
#include <errno.h>
#include <sys/stat.h>

#include "tools/rnbdctl/commands.hpp"
#include "tools/rnbdctl/files.hpp"
#include "tools/rnbdctl/text.hpp"

namespace rnbdctl {

bool read_save_target(const Context& context, const std::string& what, const std::string& file, SaveTarget& target,
                      int& code)
{
    target.file = file;
    target.backup = file + "~";
    target.what = what;
    // None (ENOENT; ENOTDIR: part of its path is no directory) replaces
    // nothing, and the write says why it cannot be made; one that cannot be
    // read cannot be kept, so it is not replaced.
    const int read_error = read_file(file, target.old_text);
    target.replacing = read_error == 0;
    if (target.replacing || read_error == ENOENT || read_error == ENOTDIR)
        return true;
    code = context.fail(what, "cannot read the file it would replace: " + file_error(read_error), kExitFailed);
    return false;
}

bool save_would_empty(const Context& context, const SaveTarget& target, size_t listed, size_t saving, bool force,
                      const std::string& why_none, const char* noun, int& code)
{
    // Nothing there to save (the modules just loaded, a restore that
    // failed) must not wipe out the list restore needs.
    if (!target.replacing || listed == 0 || saving > 0 || force)
        return false;
    code = context.usage(target.what, why_none + ", and the file lists " + std::to_string(listed) + " " + noun +
                                          (listed == 1 ? "" : "s") + "; it is left as it is (--force replaces it)");
    return true;
}

int write_save_target(const Context& context, const SaveTarget& target, const std::string& default_file,
                      const std::string& text)
{
    // Any directory missing but the default one is more likely a typo in
    // --file, which the write refuses.
    if (directory_of(target.file) == directory_of(default_file))
        mkdir(directory_of(target.file).c_str(), 0755);
    if (target.replacing)
        if (int backup_error = write_file_atomically(target.backup, target.old_text))
            return context.fail(target.what,
                                "cannot keep the previous file as " + target.backup + ": " +
                                    file_error(backup_error) + "; the file is left as it is",
                                kExitFailed);
    if (int write_error = write_file_atomically(target.file, text))
        return file_write_failed(context, target.what, target.file, write_error);
    return kExitOk;
}

void begin_saved_document(JsonWriter& json, const SaveTarget& target)
{
    json.begin_object().number("version", kJsonVersion).string("file", target.file);
    if (target.replacing)
        json.string("backup", target.backup);
    else
        json.null("backup");
}

void print_saved_summary(const Context& context, const SaveTarget& target, size_t saved, const char* noun)
{
    const std::string kept = target.replacing ? " (the previous file is " + target.backup + ")" : "";
    fprintf(context.out, "%zu %s%s saved to %s%s\n", saved, noun, saved == 1 ? "" : "s",
            printable(target.file).c_str(), printable(kept).c_str());
}

}  // namespace rnbdctl
