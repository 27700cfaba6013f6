// Names from sysfs are untrusted (issue 27, item 1): a session's name is
// chosen by the remote peer and may hold invalid UTF-8, newlines and
// terminal escape sequences. Every output stays what it claims to be: a
// table shows such bytes as \xNN and sends no control character to the
// terminal; JSON stays valid UTF-8 (control characters as \u00XX, an
// invalid byte as U+FFFD); Prometheus text parses with the reference
// client's parser (python3-prometheus-client, which tools/setup.sh
// installs; the test fails, not skips, without it).
#include <gtest/gtest.h>
#include <stdlib.h>
#include <sys/wait.h>

#include <fstream>
#include <sstream>

#include "tools/rnbdctl/context.hpp"
#include "tools/rnbdctl/json.hpp"
#include "tools/rnbdctl/prometheus.hpp"
#include "tools/rnbdctl/tests/fake-kernel.hpp"
#include "tools/rnbdctl/tests/json-parse.hpp"
#include "tools/rnbdctl/text.hpp"

namespace rnbdctl::testing {
namespace {

using Strings = std::vector<std::string>;

// ESC [2J clears a terminal; the newline would split a table row or a
// Prometheus sample; 0xff is no UTF-8. (Not at the end: sysfs values end in
// a newline, which rnbdctl strips.)
const std::string kHostile = "evil\x1b[2J\n\xff";
const std::string kHostileShown = "evil\\x1b[2J\\x0a\\xff";
// As JSON decodes it: the controls kept (escaped in the text), the
// invalid byte replaced by U+FFFD.
const std::string kHostileInJson = "evil\x1b[2J\n\xef\xbf\xbd";

// Nothing a terminal acts on: no control character but the line ends, and
// valid UTF-8 throughout.
std::string terminal_problem(const std::string& text)
{
    for (unsigned char c : text)
        if ((c < 0x20 && c != '\n') || c == 0x7f)
            return "control character " + std::to_string(c);
    return is_valid_utf8(text) ? "" : "invalid UTF-8";
}

// The client and the server, each with a name from a hostile peer: the
// server's session (named by the client), the client's session and device
// path (as its sysfs shows them).
class Hostile {
public:
    Hostile()
    {
        kernel.load_client();
        kernel.load_server();
        kernel.map("sessname=s1 path=ip:192.0.2.1 device_path=/dev/ram0");  // rnbd0
        kernel.file("block/rnbd0/rnbd_client/mapping_path", "/dev/" + kHostile + "\n");
        kernel.file("block/rnbd0/rnbd_client/session", kHostile + "\n");
        kernel.file("class/rtrs-client/" + kHostile + "/mpath_policy", "min-inflight (MI: 1)\n");
        kernel.mkdir("class/rtrs-client/" + kHostile + "/paths");
        kernel.add_export("ram0", kHostile, "/dev/ram0", "ip:192.0.2.5");
    }
    FakeKernel kernel;
};

TEST(RnbdctlUntrustedText, TablesShowControlCharactersAndInvalidBytesEscaped)
{
    Hostile hostile;
    for (const Strings& args : {Strings{"list"}, Strings{"list", "sessions"}, Strings{"session", "list"},
                                Strings{"show", "rnbd0"}, Strings{"server", "list"},
                                Strings{"server", "list", "sessions"}, Strings{"stats"}}) {
        RunResult r = hostile.kernel.run(args);
        EXPECT_EQ(r.code, 0) << args[0] << ": " << r.err;
        EXPECT_EQ(terminal_problem(r.out), "") << args[0] << ":\n" << r.out;
        EXPECT_NE(r.out.find(kHostileShown), std::string::npos) << args[0] << ":\n" << r.out;
    }
    RunResult r = hostile.kernel.run({"list"});
    EXPECT_NE(r.out.find("/dev/rnbd0  " + kHostileShown + "  /dev/" + kHostileShown + "  rw"), std::string::npos)
        << r.out;
}

TEST(RnbdctlUntrustedText, TableColumnsAlignByCharacters)
{
    FakeKernel kernel;
    kernel.load_server();
    kernel.add_export("ram0", "caf\xc3\xa9", "/dev/ram0", "ip:192.0.2.5");
    kernel.add_export("ram1", "s1", "/dev/ram1", "ip:192.0.2.6");
    RunResult r = kernel.run({"server", "list"});
    EXPECT_EQ(r.code, 0) << r.err;
    EXPECT_NE(r.out.find("ram0    ram0       caf\xc3\xa9     rw"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("ram1    ram1       s1       rw"), std::string::npos) << r.out;
}

TEST(RnbdctlUntrustedText, ErrorMessagesShowNamesEscaped)
{
    Hostile hostile;
    RunResult r = hostile.kernel.run({"unmap", "rnbd\x1b[2J\xff"});
    EXPECT_EQ(r.code, kExitNotFound);
    EXPECT_EQ(r.err, "rnbdctl: unmap rnbd\\x1b[2J\\xff: no such rnbd device\n");
    r = hostile.kernel.run({"server", "close", "ram0", "x\x1b"});
    EXPECT_EQ(r.code, kExitNotFound);
    EXPECT_EQ(r.err, "rnbdctl: server close ram0 x\\x1b: the session has no mapping of this export\n");
}

TEST(RnbdctlUntrustedText, JsonIsValidUtf8WithControlCharactersEscaped)
{
    Hostile hostile;
    struct Case {
        Strings args;
        std::string field;
    };
    for (const Case& c : {Case{{"list"}, "devices.0.session"}, Case{{"list"}, "devices.0.device_path"},
                          Case{{"show", "rnbd0"}, "device.session"}, Case{{"list", "sessions"}, "sessions.0.name"},
                          Case{{"server", "list"}, "devices.0.sessions.0.session"},
                          Case{{"server", "list", "sessions"}, "sessions.0.name"},
                          Case{{"stats"}, "server.sessions.0.name"}}) {
        Strings args = {"-o", "json"};
        args.insert(args.end(), c.args.begin(), c.args.end());
        RunResult r = hostile.kernel.run(args);
        EXPECT_EQ(r.code, 0) << c.args[0] << ": " << r.err;
        EXPECT_EQ(terminal_problem(r.out), "") << c.args[0] << ":\n" << r.out;
        JsonValue doc;
        std::string error;
        ASSERT_TRUE(parse_json(r.out, doc, error)) << c.args[0] << ": " << error << "\n" << r.out;
        const std::string expected = c.field == "devices.0.device_path" ? "/dev/" + kHostileInJson : kHostileInJson;
        EXPECT_EQ(doc.text(c.field), expected) << c.args[0] << ":\n" << r.out;
    }
    EXPECT_EQ(json_quote("a\"b\\c\n\x01\x7f\xc2\x9b\xe2\x82\xac\xc0\x80\xed\xa0\x80"),
              "\"a\\\"b\\\\c\\n\\u0001\\u007f\\u009b\xe2\x82\xac\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd"
              "\xef\xbf\xbd\"");
}

// The exposition parsed by the Prometheus project's own Python parser: one
// JSON line per sample ([name, labels, value]), or the reason it failed.
struct ParsedExposition {
    int status = -1;
    std::vector<JsonValue> samples;
    std::string output;
};

ParsedExposition parse_with_the_reference_parser(const std::string& file)
{
    ParsedExposition parsed;
    const std::string output = file + ".parsed";
    const std::string command =
        "/usr/bin/python3 tools/rnbdctl/tests/prometheus-parse.py '" + file + "' >'" + output + "' 2>&1";
    const int status = system(command.c_str());
    parsed.status = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    std::ifstream in(output);
    std::string line;
    while (std::getline(in, line)) {
        parsed.output += line + "\n";
        JsonValue sample;
        std::string error;
        if (parse_json(line, sample, error))
            parsed.samples.push_back(sample);
    }
    return parsed;
}

std::vector<std::string> label_values(const ParsedExposition& parsed, const std::string& metric,
                                      const std::string& label)
{
    std::vector<std::string> values;
    for (const JsonValue& sample : parsed.samples)
        if (sample.text("0") == metric)
            values.push_back(sample.text("1." + label));
    return values;
}

TEST(RnbdctlUntrustedText, PrometheusTextParsesWithTheReferenceParser)
{
    Hostile hostile;
    // A second name that differs only in what is replaced: its series
    // would repeat the first one's, which Prometheus refuses (the whole
    // file), so it is written once.
    hostile.kernel.add_export("ram1", "evil\x1b[2J\n\xfe", "/dev/ram1", "ip:192.0.2.6");
    hostile.kernel.mkdir("textfile");
    const std::string file = hostile.kernel.root() + "/textfile/rnbd.prom";
    RunResult r = hostile.kernel.run({"stats", "-o", "prometheus", "--file", file});
    ASSERT_EQ(r.code, 0) << r.err;
    std::ifstream in(file);
    std::stringstream text;
    text << in.rdbuf();
    EXPECT_EQ(check_prometheus_syntax(text.str()), "") << text.str();
    EXPECT_EQ(terminal_problem(text.str()), "");
    ParsedExposition parsed = parse_with_the_reference_parser(file);
    ASSERT_EQ(parsed.status, 0) << parsed.output;
    // Label values: newline escaped as the format says (the parser gives it
    // back), the other controls and the invalid byte as U+FFFD.
    const std::string expected = "evil\xef\xbf\xbd[2J\n\xef\xbf\xbd";
    EXPECT_EQ(label_values(parsed, "rnbd_server_session_paths", "session"), (Strings{expected}));
    EXPECT_EQ(label_values(parsed, "rnbd_client_device_info", "session"), (Strings{expected}));
    EXPECT_EQ(label_values(parsed, "rnbd_client_device_info", "device_path"), (Strings{"/dev/" + expected}));
    EXPECT_EQ(label_values(parsed, "rnbd_server_export_mapping_info", "session"), (Strings{expected, expected}));
    EXPECT_EQ(prometheus_escape("a\"b\\c\nd\x1b\xff\xc3\xa9"), "a\\\"b\\\\c\\nd\xef\xbf\xbd\xef\xbf\xbd\xc3\xa9");
}

// The reference parser refuses what Prometheus refuses: a test that could
// not fail would prove nothing.
TEST(RnbdctlUntrustedText, TheReferenceParserRefusesBrokenText)
{
    char pattern[] = "/tmp/rnbdctl-prom.XXXXXX";
    ASSERT_NE(mkdtemp(pattern), nullptr);
    const std::string directory = pattern;
    const std::string file = directory + "/broken.prom";
    for (const std::string& broken : {std::string("# TYPE a gauge\na{x=\"\xff\"} 1\n"),
                                      std::string("# TYPE a gauge\na{x=\"1\n\"} 1\n")}) {
        std::ofstream(file) << broken;
        EXPECT_EQ(parse_with_the_reference_parser(file).status, 1) << broken;
    }
    std::ofstream(file) << "# TYPE a gauge\na{x=\"\\n\"} 1\n";
    ParsedExposition good = parse_with_the_reference_parser(file);
    EXPECT_EQ(good.status, 0) << good.output;
    EXPECT_EQ(label_values(good, "a", "x"), (Strings{"\n"}));
    ASSERT_EQ(system(("rm -rf '" + directory + "'").c_str()), 0);
}

TEST(RnbdctlUntrustedText, TheJsonParserRefusesInvalidUtf8)
{
    JsonValue value;
    std::string error;
    for (const std::string& bad : {std::string("\"\xff\""), std::string("\"\xc0\x80\""),
                                   std::string("\"\xed\xa0\x80\""), std::string("\"\xf4\x90\x80\x80\""),
                                   std::string("\"\xe2\x82\""), std::string("\"\\ud800\""),
                                   std::string("\"\\udc00\""), std::string("\"\\u12g4\"")})
        EXPECT_FALSE(parse_json(bad, value, error)) << bad;
    ASSERT_TRUE(parse_json("\"\\u00e9\\ud83d\\ude00\xe2\x82\xac\"", value, error)) << error;
    EXPECT_EQ(value.string, "\xc3\xa9\xf0\x9f\x98\x80\xe2\x82\xac");
}

TEST(RnbdctlUntrustedText, PrintableEscapesWhatATerminalWouldActOn)
{
    EXPECT_EQ(printable("plain caf\xc3\xa9"), "plain caf\xc3\xa9");
    EXPECT_EQ(printable("a\\b"), "a\\\\b");
    EXPECT_EQ(printable("\x1b[2J\x07\x7f"), "\\x1b[2J\\x07\\x7f");
    EXPECT_EQ(printable("\xc2\x9b" "1m"), "\\xc2\\x9b1m");  // C1 CSI
    EXPECT_EQ(printable("\xff\xe2\x82"), "\\xff\\xe2\\x82");
    EXPECT_EQ(display_width(printable("caf\xc3\xa9")), 4u);
}

}  // namespace
}  // namespace rnbdctl::testing
