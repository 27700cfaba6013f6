// `rnbdctl stats -o prometheus`: every client and server figure sysfs
// shows, in the Prometheus text exposition format (version 0.0.4) that
// node-exporter's textfile collector reads. Metric names and labels are
// listed in Documentation/rnbdctl.md.
#pragma once

#include <string>

#include "tools/rnbdctl/sysfs.hpp"

namespace rnbdctl {

std::string format_prometheus(const Sysfs& sysfs);

// A label value escaped as the format wants (\\, \", \n), made valid UTF-8
// with no control character: an invalid byte or a control other than the
// newline becomes U+FFFD (the format has no escape for them).
std::string prometheus_escape(const std::string& value);

}  // namespace rnbdctl
