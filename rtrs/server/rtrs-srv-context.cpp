// Server context: the listener, connect requests, and the session registry.
#include <cxxrt/log.hpp>
#include "rtrs/server/rtrs-srv.hpp"
#include <cxxrt/enforce.hpp>

namespace rtrs::srv {

using namespace cxxrt;

namespace {

bool same_uuid(const wire::Uuid& a, const wire::Uuid& b)
{
    return compare_bytes(a.bytes, b.bytes, sizeof(a.bytes)) == 0;
}

// Answers a refused connect request with a CON_RSP carrying the errno, so
// the client can tell "unknown session" (-ENXIO) from "duplicate" (-EEXIST).
int refuse(ib::IncomingConnection& incoming, int error)
{
    u8 message[sizeof(wire::ConnRsp)];
    auto built = codec::build_conn_reject(ByteSpan(message), error);
    if (built.is_ok() && !incoming.adopted())
        (void)incoming.reject(ConstByteSpan(message, built.value()));
    return error;
}

// A connect request's client: its accounting key and its address as text
// (for the log line of a refusal).
struct Client {
    ClientKey key;
    char text[kMaxAddressTextLength] = "<unknown>";
};

Client client_of(const ib::IncomingConnection& incoming)
{
    Client client;
    // On the server, the CM's destination is the client.
    auto converted = incoming.destination_address().to_addr();
    if (converted.is_error())
        return client;
    Address address;
    address.family = AddressFamily(converted.value().family);
    copy_bytes(address.bytes, converted.value().bytes, sizeof(address.bytes));
    client.key = client_key(address.family, address.bytes);
    (void)format_address(address, Span<char>(client.text, sizeof(client.text)));
    return client;
}

// What the user says of a new path of a session it knows (its exports may
// not admit the path's client address). Context::mutex() held.
int user_path_refusal(Session& session, const ib::IncomingConnection& incoming, const Client& client)
{
    const rtrs_server_callbacks& callbacks = session.context().callbacks();
    if (!session.announced || !callbacks.admit_path)
        return 0;
    rtrs_address address{};
    auto converted = incoming.destination_address().to_addr();
    if (converted.is_ok()) {
        address.family = converted.value().family;
        copy_bytes(address.bytes, converted.value().bytes, sizeof(address.bytes));
    }
    const int refusal = callbacks.admit_path(session.user_context, &address);
    if (refusal < 0)
        log::err_ratelimited("session %s: new path from %s refused by the session's user (%d)", session.name(),
                             client.text, refusal);
    return refusal;
}

// Logs a refusal by a per-client limit or the connection budget; returns its errno.
int refused_by(Refusal why, const Client& client)
{
    if (why == Refusal::kClients)
        log::err_ratelimited("connect from %s refused: the server lists as many clients as it can (%d)", client.text,
                             refusal_errno(why));
    else
        log::err_ratelimited("connect from %s refused: %s=%u reached (%d)", client.text, refusal_limit_name(why),
                             refusal_limit(params(), why), refusal_errno(why));
    return refusal_errno(why);
}

}  // namespace

Context::~Context()
{
    CXXRT_ASSERT(sessions_.is_empty());
}

Result<void> Context::listen()
{
    auto id = CXXRT_TRY(ib::CmId::create(Gfp::kernel(), *this));
    // The IPv6 wildcard accepts IPv4 clients too (dual stack).
    auto address = CXXRT_TRY(ib::SockAddr::any_ipv6(port_));
    auto bound = id->bind(address);
    if (bound.is_error()) {
        log::err("cannot bind to port %u: %d", unsigned(port_), bound.to_errno());
        return bound.error();
    }
    CXXRT_TRY(id->listen(64));
    listener_ = move(id);
    log::info("listening on port %u", unsigned(port_));
    return {};
}

void Context::on_cm_event(ib::CmId& id, const ib::CmEvent& event)
{
    // The listener itself only hears about its device going away.
    log::warn("listener event %s (%d)", event.name(), event.status);
}

Session* Context::find_session(const wire::Uuid& uuid)
{
    for (Session& session : sessions_)
        if (same_uuid(session.uuid(), uuid))
            return &session;
    return nullptr;
}

Context::NameClaim Context::claim_session_name(Session& session, StringView name)
{
    MutexGuard guard(mutex_);
    for (Session& other : sessions_)
        if (&other != &session && StringView(other.name()) == name)
            return NameClaim::kTaken;
    if (!session.has_name()) {
        session.set_name(name);
        return NameClaim::kOk;
    }
    return StringView(session.name()) == name ? NameClaim::kOk : NameClaim::kChanged;
}

u32 Context::session_count()
{
    MutexGuard guard(mutex_);
    return session_count_;
}

int Context::on_connect_request(ib::CmId& listener, ib::IncomingConnection& incoming, const ib::CmEvent& event)
{
    auto request = codec::decode_conn_req(event.private_data);
    if (request.is_error()) {
        log::err_ratelimited("malformed connect request refused: %d", request.to_errno());
        g_counters.refused_connects.add(1);
        return refuse(incoming, -err::kInval);
    }
    auto accepted = accept_request(incoming, request.value());
    int rc = accepted.is_ok() ? accepted.value() : accepted.to_errno();
    if (rc < 0) {
        g_counters.refused_connects.add(1);
        return refuse(incoming, rc);
    }
    return 0;
}

// Finds or makes the session and path of a connect request under the
// context lock, then sets the path up and hands it the connection with only
// the path's own lock held. Returns 0, or a negative errno for the client.
namespace {

// The connection joins its path (the path's first one initializes it),
// then the setup begun under the context's mutex ends.
Result<void> join_path(Path& path, bool created, ib::IncomingConnection& incoming, const codec::ConnReqFields& request)
{
    Result<void> done;
    {
        MutexGuard setup(path.setup_mutex());
        if (created) {
            done = path.init(incoming.device());
            if (done.is_error())
                path.schedule_close("cannot allocate a path");
        } else if (!path.initialized()) {
            done = Error(err::kConnReset);  // its first connection failed to set it up
        }
        if (done.is_ok())
            done = path.add_connection(incoming, request.cid, request.key_after_data);
    }
    path.end_setup();
    return done;
}

}  // namespace

Result<int> Context::accept_request(ib::IncomingConnection& incoming, const codec::ConnReqFields& request)
{
    Path* path = nullptr;
    bool created = false;
    const Client client = client_of(incoming);
    {
        MutexGuard guard(mutex_);
        if (shutting_down_)
            return -err::kConnRefused;
        Session* session = find_session(request.paths_uuid);
        bool new_session = false;
        if (!session) {
            // Only a client's first connection may create a session; any other
            // refers to a session we no longer have and must start over.
            if (!request.first_conn)
                return -err::kNxio;
            if (session_count_ >= params().max_sessions) {
                log::err_ratelimited("connect refused: already %u sessions (max_sessions)", session_count_);
                return -err::kConnRefused;
            }
            if (Refusal why = admission().charge_session(client.key); why != Refusal::kNone)
                return refused_by(why, client);
            session = allocate<Session>(Gfp::kernel(), *this, request.paths_uuid, client.key);
            if (!session) {
                admission().release_session(client.key);
                return -err::kNoMem;
            }
            session->charged = true;
            sessions_.push_back(*session);
            ++session_count_;
            g_counters.sessions.add(1);
            new_session = true;
        }
        path = session->find_path(request.sess_uuid);
        if (path && path->reconnect_count() != request.recon_cnt) {
            // The client reconnects a path we still hold: let the old one
            // go, but only for its own client address. A path UUID travels
            // in clear: from elsewhere it is no proof of being that client,
            // and the path keeps serving (security review N11).
            if (!path->same_client(incoming)) {
                log::err_ratelimited("session %s: reconnect from %s refused: the path's client is at another "
                                     "address (%d)", session->name(), client.text, -err::kPerm);
                return -err::kPerm;
            }
            path->schedule_close("client reconnected");
            path = nullptr;
        }
        if (path && path->connection_count() != request.cid_num)
            return -err::kInval;
        if (!path) {
            // A path may not announce more connections than the limit, nor
            // start when its client's or the server's budget is spent
            // (checked here, before the path allocates anything).
            Refusal why = admit_path(params(), request.cid_num);
            if (why == Refusal::kNone)
                why = admission().check_connection(session->client());
            int refusal = why != Refusal::kNone ? refused_by(why, client) : session->new_path_refusal(incoming);
            if (refusal == 0)
                refusal = user_path_refusal(*session, incoming, client);
            if (refusal < 0) {
                if (new_session)
                    forget_session(*session);
                return refusal;
            }
            path = allocate<Path>(Gfp::kernel(), *session, request, incoming);
            if (!path) {
                if (new_session)
                    forget_session(*session);
                return -err::kNoMem;
            }
            session->paths.push_back(*path);
            created = true;
        }
        path->begin_setup();
    }
    Result<void> done = join_path(*path, created, incoming, request);
    return done.is_ok() ? 0 : done.to_errno();
}

// A session is listed only while it has a path: one made for a connect
// request that then failed goes again at once.
void Context::forget_session(Session& session)
{
    if (!session.paths.is_empty())
        return;
    Sessions::remove(session);
    --session_count_;
    destroy(&session);
}

void Context::path_closed(Path& path)
{
    Session& session = path.session();
    bool last = false;
    {
        MutexGuard guard(mutex_);
        Session::Paths::remove(path);
        if (session.paths.is_empty()) {
            Sessions::remove(session);
            --session_count_;
            last = true;
        }
    }
    destroy(&path);
    if (last) {
        session.sysfs.remove();
        if (session.announced && callbacks_.link_event)
            callbacks_.link_event(cxxrt::to_handle(&session),
                                  RTRS_SERVER_LINK_DISCONNECTED, session.user_context);
        destroy(&session);
    }
    paths_gone_.wake_up_all();
}

void Context::shut_down()
{
    listener_.reset();  // no new connect requests after this returns
    {
        MutexGuard guard(mutex_);
        shutting_down_ = true;
        for (Session& session : sessions_)
            for (Path& path : session.paths)
                path.schedule_close("server shutting down");
    }
    paths_gone_.wait([this] {
        MutexGuard guard(mutex_);
        return sessions_.is_empty();
    });
}

Session::~Session()
{
    CXXRT_ASSERT(paths.is_empty());
    // Every path released its chunks when its last IO finished.
    CXXRT_ASSERT(chunk_owners_.held() == 0);
    if (charged)
        admission().release_session(client_);
    if (chunks_)
        g_counters.chunk_bytes.add(-(long long)(u64(chunk_count_) * params().chunk_size));
    g_counters.sessions.add(-1);
}

Result<void> Session::ensure_chunks()
{
    const Params& p = params();
    MutexGuard guard(chunks_mutex_);
    if (chunks_ && chunk_count_ == p.queue_depth)
        return {};
    if (chunk_owners_.size() == 0)
        CXXRT_TRY(chunk_owners_.init(p.queue_depth, Gfp::kernel()));
    if (!chunks_)
        chunks_ = CXXRT_TRY(Array<cxxrt::PageBuffer>::create(Gfp::kernel(), p.queue_depth));
    // A failed earlier attempt left some chunks: keep them, add the rest.
    while (chunk_count_ < p.queue_depth) {
        chunks_[chunk_count_] = CXXRT_TRY(cxxrt::PageBuffer::create_zeroed(Gfp::kernel(), p.chunk_size));
        ++chunk_count_;
        g_counters.chunk_bytes.add(p.chunk_size);
    }
    return {};
}

Path* Session::find_path(const wire::Uuid& uuid)
{
    for (Path& path : paths)
        if (!path.is_closing() && same_uuid(*reinterpret_cast<const wire::Uuid*>(path.uuid()), uuid))
            return &path;
    return nullptr;
}

int Session::new_path_refusal(const ib::IncomingConnection& incoming)
{
    u32 count = 0;
    for (Path& path : paths) {
        ++count;
        // A closing path is about to go (a reconnect replaces it).
        if (!path.is_closing() && path.same_addresses(incoming)) {
            log::err_ratelimited("session %s: a path between the same addresses exists", name());
            return -err::kExist;
        }
    }
    if (count >= Params::kMaxPathsPerSession) {
        log::err_ratelimited("session %s: already %u paths", name(), count);
        return -err::kConnReset;
    }
    return 0;
}

void Session::set_name(StringView name)
{
    size_t n = min(name.length(), sizeof(name_) - 1);
    copy_bytes(name_, name.data(), n);
    name_[n] = '\0';
}

}  // namespace rtrs::srv
