// How the model is shown: the JSON objects whose shape Documentation/
// rnbdctl.md fixes, and the tables of `-o table`.
#pragma once

#include <cstdio>
#include <vector>

#include "tools/rnbdctl/json.hpp"
#include "tools/rnbdctl/model.hpp"
#include "tools/rnbdctl/table.hpp"

namespace rnbdctl {

// Every JSON document rnbdctl prints starts with this (bumped only for an
// incompatible change of the shape).
inline constexpr int kJsonVersion = 1;

void json_client_device(JsonWriter& json, const ClientDevice& device, const char* key = nullptr);
void json_client_path(JsonWriter& json, const ClientPath& path, const char* key = nullptr);
void json_client_session(JsonWriter& json, const ClientSession& session, const char* key = nullptr);
void json_server_device(JsonWriter& json, const ServerDevice& device);
void json_server_session(JsonWriter& json, const ServerSession& session);

// The tables; each takes how to show sizes (--bytes), those without a size
// column too, so that print_list takes any of them.
void table_client_devices(FILE* out, const std::vector<ClientDevice>& devices, Sizes sizes);
// One row per path (a session without paths gets one row).
void table_client_sessions(FILE* out, const std::vector<ClientSession>& sessions, Sizes sizes);
void table_client_path_stats(FILE* out, const std::vector<ClientSession>& sessions, Sizes sizes);
void table_server_devices(FILE* out, const std::vector<ServerDevice>& devices, Sizes sizes);
void table_server_sessions(FILE* out, const std::vector<ServerSession>& sessions, Sizes sizes);
// `show DEVICE`: key/value lines.
void text_client_device(FILE* out, const ClientDevice& device, Sizes sizes);
void text_client_session(FILE* out, const ClientSession& session, Sizes sizes);

}  // namespace rnbdctl
