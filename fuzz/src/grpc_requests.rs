//! gRPC requests handled in process: the input is a sequence of records
//! `[selector, flags, length, length bytes of a prost-encoded request]`, each decoded as the
//! request type its selector picks and handed to the service's trait method (Catalog,
//! Matches, Envs, and dm_env_rpc `Environment` over one in-process `Process` stream) with a
//! `tonic::Request`, on a current-thread tokio runtime. The services are fresh for each
//! input, in memory, with small limits.
//!
//! Flags: bit 0 attaches the `x-seat-token` of a seat joined earlier; bit 1 puts an id the
//! services handed out earlier (a match, a batch of envs, a world) in place of the
//! request's; bit 2 also puts that joined seat's number in; bits 4-7 pick which earlier one.
//! Any `Err(Status)` is an answer; a panic is a finding, and so is a Status with code
//! INTERNAL (nothing fails on the server's side here: no database, no network), unless
//! `CHECKRAISE_FUZZ_ALLOW_INTERNAL=1` makes it a line on standard error instead.

use std::convert::Infallible;
use std::sync::OnceLock;

use bytes::{BufMut, Bytes, BytesMut};
use checkraise_grpc::catalog::CatalogService;
use checkraise_grpc::dm_env::{DmEnvService, WorldStore};
use checkraise_grpc::dm_env_pb::dm_env_rpc::v1 as dm;
use checkraise_grpc::envs::{EnvStore, EnvsService};
use checkraise_grpc::matches::{MatchStore, MatchesService};
use checkraise_grpc::pb;
use checkraise_grpc::pb::catalog_server::Catalog;
use checkraise_grpc::pb::envs_server::Envs;
use checkraise_grpc::pb::matches_server::Matches;
use dm::environment_server::Environment;
use http_body::Frame;
use prost::Message;
use tokio::runtime::Runtime;
use tokio::sync::mpsc;
use tokio_stream::StreamExt;
use tokio_stream::wrappers::ReceiverStream;
use tonic::codec::Codec;
use tonic::{Code, Request, Response, Status, Streaming};

/// Most records read from one input.
const MAX_REQUESTS: usize = 24;
/// Most matches, env batches or worlds one input may create.
const MAX_CREATED: usize = 3;
/// Most envs in one batch.
const MAX_ENVS: u32 = 4;
/// Each bot's thinking time a move, in milliseconds (the server's `--max-bot-ms`).
const BOT_MS: u64 = 1;

/// The selectors, in order: a record's first byte modulo their number picks one.
pub const REQUESTS: &[&str] = &[
    "Catalog.ListGames",
    "Catalog.GetGame",
    "Matches.CreateMatch",
    "Matches.JoinSeat",
    "Matches.GetView",
    "Matches.Act",
    "Matches.GetSpectatorView",
    "Matches.WatchSeat",
    "Matches.WatchSpectator",
    "Matches.ListMatches",
    "Matches.GetReplay",
    "Envs.CreateEnvs",
    "Envs.Reset",
    "Envs.Step",
    "Envs.CloseEnvs",
    "Environment.Process",
];

/// One record: the selector, the flags and the encoded request.
pub fn record(selector: usize, flags: u8, request: &impl Message) -> Vec<u8> {
    let body = request.encode_to_vec();
    let len = body.len().min(255);
    let mut out = vec![selector as u8, flags, len as u8];
    out.extend_from_slice(&body[..len]);
    out
}

fn runtime() -> &'static Runtime {
    static RUNTIME: OnceLock<Runtime> = OnceLock::new();
    RUNTIME.get_or_init(|| {
        tokio::runtime::Builder::new_current_thread()
            .enable_time()
            .build()
            .expect("a tokio runtime")
    })
}

/// Feeds one input.
pub fn run(data: &[u8]) {
    runtime().block_on(Session::new().feed(data));
}

/// A seat joined earlier: its match, number and token.
struct Joined {
    match_id: String,
    seat: u32,
    token: String,
}

type FrameSender = mpsc::Sender<Result<Frame<Bytes>, Infallible>>;
type Responses = std::pin::Pin<
    Box<dyn tokio_stream::Stream<Item = Result<dm::EnvironmentResponse, Status>> + Send>,
>;

struct Session {
    catalog: CatalogService,
    matches: MatchesService,
    envs: EnvsService,
    environment: DmEnvService,
    match_ids: Vec<String>,
    joined: Vec<Joined>,
    envs_ids: Vec<String>,
    worlds: Vec<String>,
    process: Option<(FrameSender, Responses)>,
}

/// Fails on a Status with code INTERNAL (unless allowed by the environment).
fn check_status(what: &str, status: &Status) {
    if status.code() == Code::Internal {
        if std::env::var("CHECKRAISE_FUZZ_ALLOW_INTERNAL").as_deref() == Ok("1") {
            eprintln!("INTERNAL from {what}: {}", status.message());
        } else {
            panic!("INTERNAL from {what}: {}", status.message());
        }
    }
}

fn pick<T>(items: &[T], flags: u8) -> Option<&T> {
    (!items.is_empty()).then(|| &items[usize::from(flags >> 4) % items.len()])
}

impl Session {
    fn new() -> Self {
        Session {
            catalog: CatalogService,
            matches: MatchesService::new(
                MatchStore::new(MAX_CREATED).with_message_limit(4 << 20),
                BOT_MS,
            ),
            envs: EnvsService::new(
                EnvStore::new(MAX_CREATED * MAX_ENVS as usize, 4 << 20).with_bot_cap(BOT_MS),
            ),
            environment: DmEnvService::new(WorldStore::new(MAX_CREATED, BOT_MS)),
            match_ids: Vec::new(),
            joined: Vec::new(),
            envs_ids: Vec::new(),
            worlds: Vec::new(),
            process: None,
        }
    }

    async fn feed(mut self, mut data: &[u8]) {
        for _ in 0..MAX_REQUESTS {
            let [selector, flags, len, rest @ ..] = data else {
                break;
            };
            let len = usize::from(*len).min(rest.len());
            let (body, tail) = rest.split_at(len);
            data = tail;
            let selector = usize::from(*selector) % REQUESTS.len();
            self.one(selector, *flags, body).await;
        }
        // The client closes its side: the Process stream ends.
        if let Some((sender, mut responses)) = self.process.take() {
            drop(sender);
            while let Some(response) = responses.next().await {
                if let Err(status) = response {
                    check_status("Environment.Process", &status);
                }
            }
        }
    }

    /// A request with the flags' seat token.
    fn request<T>(&self, message: T, flags: u8) -> Request<T> {
        let mut request = Request::new(message);
        if flags & 1 != 0
            && let Some(joined) = pick(&self.joined, flags)
            && let Ok(value) = joined.token.parse()
        {
            request
                .metadata_mut()
                .insert(checkraise_grpc::SEAT_TOKEN_METADATA, value);
        }
        request
    }

    /// The match id and seat to use: the request's, or with the flags an earlier one's.
    fn match_and_seat(&self, match_id: &mut String, seat: &mut u32, flags: u8) {
        if flags & 2 != 0 {
            if let Some(joined) = pick(&self.joined, flags) {
                *match_id = joined.match_id.clone();
                if flags & 4 != 0 {
                    *seat = joined.seat;
                }
            } else if let Some(id) = pick(&self.match_ids, flags) {
                *match_id = id.clone();
            }
        }
    }

    fn envs_id(&self, envs_id: &mut String, flags: u8) {
        if flags & 2 != 0
            && let Some(id) = pick(&self.envs_ids, flags)
        {
            *envs_id = id.clone();
        }
    }

    async fn one(&mut self, selector: usize, flags: u8, body: &[u8]) {
        let what = REQUESTS[selector];
        match selector {
            0 => {
                let Some(r) = decode::<pb::ListGamesRequest>(body) else {
                    return;
                };
                finish(what, self.catalog.list_games(self.request(r, flags)).await);
            }
            1 => {
                let Some(r) = decode::<pb::GetGameRequest>(body) else {
                    return;
                };
                finish(what, self.catalog.get_game(self.request(r, flags)).await);
            }
            2 => {
                let Some(r) = decode::<pb::CreateMatchRequest>(body) else {
                    return;
                };
                if self.match_ids.len() >= MAX_CREATED {
                    return;
                }
                let reply = self.matches.create_match(self.request(r, flags)).await;
                if let Ok(reply) = &reply {
                    self.match_ids.push(reply.get_ref().match_id.clone());
                }
                finish(what, reply);
            }
            3 => {
                let Some(mut r) = decode::<pb::JoinSeatRequest>(body) else {
                    return;
                };
                if flags & 2 != 0
                    && let Some(id) = pick(&self.match_ids, flags)
                {
                    r.match_id = id.clone();
                }
                let match_id = r.match_id.clone();
                let reply = self.matches.join_seat(self.request(r, flags)).await;
                if let Ok(reply) = &reply {
                    let reply = reply.get_ref();
                    self.joined.push(Joined {
                        match_id,
                        seat: reply.seat,
                        token: reply.seat_token.clone(),
                    });
                }
                finish(what, reply);
            }
            4 => {
                let Some(mut r) = decode::<pb::GetViewRequest>(body) else {
                    return;
                };
                self.match_and_seat(&mut r.match_id, &mut r.seat, flags);
                finish(what, self.matches.get_view(self.request(r, flags)).await);
            }
            5 => {
                let Some(mut r) = decode::<pb::ActRequest>(body) else {
                    return;
                };
                self.match_and_seat(&mut r.match_id, &mut r.seat, flags);
                finish(what, self.matches.act(self.request(r, flags)).await);
            }
            6 => {
                let Some(mut r) = decode::<pb::GetSpectatorViewRequest>(body) else {
                    return;
                };
                self.match_and_seat(&mut r.match_id, &mut 0, flags);
                let reply = self
                    .matches
                    .get_spectator_view(self.request(r, flags))
                    .await;
                finish(what, reply);
            }
            7 => {
                let Some(mut r) = decode::<pb::WatchSeatRequest>(body) else {
                    return;
                };
                self.match_and_seat(&mut r.match_id, &mut r.seat, flags);
                match self.matches.watch_seat(self.request(r, flags)).await {
                    Ok(reply) => first_events(what, reply.into_inner()).await,
                    Err(status) => check_status(what, &status),
                }
            }
            8 => {
                let Some(mut r) = decode::<pb::WatchSpectatorRequest>(body) else {
                    return;
                };
                self.match_and_seat(&mut r.match_id, &mut 0, flags);
                match self.matches.watch_spectator(self.request(r, flags)).await {
                    Ok(reply) => first_events(what, reply.into_inner()).await,
                    Err(status) => check_status(what, &status),
                }
            }
            9 => {
                let Some(r) = decode::<pb::ListMatchesRequest>(body) else {
                    return;
                };
                finish(
                    what,
                    self.matches.list_matches(self.request(r, flags)).await,
                );
            }
            10 => {
                let Some(mut r) = decode::<pb::GetReplayRequest>(body) else {
                    return;
                };
                self.match_and_seat(&mut r.match_id, &mut 0, flags);
                finish(what, self.matches.get_replay(self.request(r, flags)).await);
            }
            11 => {
                let Some(mut r) = decode::<pb::CreateEnvsRequest>(body) else {
                    return;
                };
                if self.envs_ids.len() >= MAX_CREATED {
                    return;
                }
                r.num_envs = r.num_envs.min(MAX_ENVS);
                let reply = self.envs.create_envs(self.request(r, flags)).await;
                if let Ok(reply) = &reply {
                    self.envs_ids.push(reply.get_ref().envs_id.clone());
                }
                finish(what, reply);
            }
            12 => {
                let Some(mut r) = decode::<pb::ResetRequest>(body) else {
                    return;
                };
                self.envs_id(&mut r.envs_id, flags);
                finish(what, self.envs.reset(self.request(r, flags)).await);
            }
            13 => {
                let Some(mut r) = decode::<pb::StepRequest>(body) else {
                    return;
                };
                self.envs_id(&mut r.envs_id, flags);
                finish(what, self.envs.step(self.request(r, flags)).await);
            }
            14 => {
                let Some(mut r) = decode::<pb::CloseEnvsRequest>(body) else {
                    return;
                };
                self.envs_id(&mut r.envs_id, flags);
                finish(what, self.envs.close_envs(self.request(r, flags)).await);
            }
            _ => {
                let Some(r) = decode::<dm::EnvironmentRequest>(body) else {
                    return;
                };
                self.environment_request(r, flags).await;
            }
        }
    }

    /// Sends one request down the session's `Process` stream (opened on first use, and again
    /// after the server ended it) and reads its response.
    async fn environment_request(&mut self, mut request: dm::EnvironmentRequest, flags: u8) {
        use dm::environment_request::Payload;
        let world = pick(&self.worlds, flags).cloned();
        let creates = matches!(request.payload, Some(Payload::CreateWorld(_)));
        if creates && self.worlds.len() >= MAX_CREATED {
            return;
        }
        if flags & 2 != 0
            && let Some(world) = world
        {
            match &mut request.payload {
                Some(Payload::JoinWorld(r)) => r.world_name = world,
                Some(Payload::ResetWorld(r)) => r.world_name = world,
                Some(Payload::DestroyWorld(r)) => r.world_name = world,
                _ => {}
            }
        }
        if self.process.is_none() {
            let (sender, receiver) = mpsc::channel(4);
            let body = http_body_util::StreamBody::new(ReceiverStream::new(receiver));
            let decoder = tonic_prost::ProstCodec::<dm::EnvironmentResponse, dm::EnvironmentRequest>::default().decoder();
            let requests = Streaming::new_request(decoder, body, None, None);
            match self.environment.process(Request::new(requests)).await {
                Ok(reply) => self.process = Some((sender, reply.into_inner())),
                Err(status) => return check_status("Environment.Process", &status),
            }
        }
        let Some((sender, responses)) = &mut self.process else {
            return;
        };
        let encoded = request.encode_to_vec();
        let mut frame = BytesMut::with_capacity(5 + encoded.len());
        frame.put_u8(0);
        frame.put_u32(encoded.len() as u32);
        frame.put_slice(&encoded);
        if sender.send(Ok(Frame::data(frame.freeze()))).await.is_err() {
            self.process = None;
            return;
        }
        match responses.next().await {
            Some(Ok(response)) => {
                use dm::environment_response::Payload as Reply;
                if std::env::var_os("CHECKRAISE_FUZZ_TRACE").is_some() {
                    eprintln!("Environment.Process: {:?}", response.payload);
                }
                match response.payload {
                    Some(Reply::CreateWorld(created)) => self.worlds.push(created.world_name),
                    Some(Reply::Error(status)) if status.code == Code::Internal as i32 => {
                        check_status("Environment.Process", &Status::internal(status.message));
                    }
                    _ => {}
                }
            }
            Some(Err(status)) => {
                check_status("Environment.Process", &status);
                self.process = None;
            }
            None => self.process = None,
        }
    }
}

/// Reads what a watch stream has ready now (its first events), then drops it.
async fn first_events<S, T>(what: &str, mut stream: S)
where
    S: tokio_stream::Stream<Item = Result<T, Status>> + Unpin,
{
    for _ in 0..4 {
        let next = tokio::select! {
            biased;
            next = stream.next() => next,
            () = tokio::task::yield_now() => return,
        };
        match next {
            Some(Ok(_)) => {}
            Some(Err(status)) => return check_status(what, &status),
            None => return,
        }
    }
}

fn decode<T: Message + Default>(body: &[u8]) -> Option<T> {
    T::decode(body).ok()
}

/// Checks a reply; with `CHECKRAISE_FUZZ_TRACE=1`, writes each answer to standard error.
fn finish<T>(what: &str, reply: Result<Response<T>, Status>) {
    let trace = std::env::var_os("CHECKRAISE_FUZZ_TRACE").is_some();
    match reply {
        Ok(_) if trace => eprintln!("{what}: OK"),
        Ok(_) => {}
        Err(status) => {
            if trace {
                eprintln!("{what}: {:?}: {}", status.code(), status.message());
            }
            check_status(what, &status);
        }
    }
}
