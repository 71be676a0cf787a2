//! Shares that hold, against the real binary (`checkraise-server` as a process, one on
//! loopback per test): the attacker's calls come from 127.0.0.2, everyone else's from
//! 127.0.0.3 to 127.0.0.5 (clients bound to those source addresses), so the server tells them
//! apart as it would tell apart two machines; behind a trusted balancer, the client its PROXY
//! header names. And a store the server cannot write, or a stored row it cannot read, said as
//! what it is.

use std::collections::BTreeSet;
use std::io::{BufRead, BufReader};
use std::net::{IpAddr, SocketAddr};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use checkraise_grpc::pb;
use checkraise_grpc::pb::ladder_client::LadderClient;
use checkraise_grpc::pb::matches_client::MatchesClient;
use hyper_util::rt::TokioIo;
use tokio::net::TcpSocket;
use tokio_stream::StreamExt;
use tonic::transport::{Channel, Endpoint, Uri};
use tonic::{Code, Request, Status};

use crate::common::{temp_dir, with_token};

const ATTACKER: &str = "127.0.0.2";
const OTHERS: [&str; 3] = ["127.0.0.3", "127.0.0.4", "127.0.0.5"];

/// A `checkraise-server` process, killed when dropped; its log lines are kept.
struct Binary {
    child: Child,
    address: SocketAddr,
    lines: Arc<Mutex<Vec<String>>>,
}

impl Binary {
    /// The server with `flags` (in memory unless they name a database), once it listens.
    fn start(flags: &[&str]) -> Self {
        let mut args = vec!["--address", "127.0.0.1:0", "--log-json"];
        if !flags.iter().any(|f| f.starts_with("--database")) {
            args.extend(["--database", "memory"]);
        }
        args.extend(flags);
        let mut child = Command::new(env!("CARGO_BIN_EXE_checkraise-server"))
            .args(&args)
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .unwrap();
        let stdout = child.stdout.take().unwrap();
        let lines = Arc::new(Mutex::new(Vec::new()));
        let (found, address) = std::sync::mpsc::channel();
        let kept = lines.clone();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines().map_while(Result::ok) {
                if let Ok(record) = serde_json::from_str::<serde_json::Value>(&line) {
                    let fields = &record["fields"];
                    if fields["message"]
                        .as_str()
                        .is_some_and(|m| m.contains("listening"))
                    {
                        let _ = found.send(fields["address"].as_str().unwrap().to_string());
                    }
                }
                kept.lock().unwrap().push(line);
            }
        });
        let address = address
            .recv_timeout(Duration::from_secs(60))
            .expect("the server reports its address")
            .parse()
            .unwrap();
        Binary {
            child,
            address,
            lines,
        }
    }

    fn log(&self) -> String {
        self.lines.lock().unwrap().join("\n")
    }

    /// A connection to the server from `source` (a loopback address).
    async fn channel_from(&self, source: &str) -> Channel {
        channel_from(source, self.address).await
    }
}

impl Drop for Binary {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A gRPC channel whose connections leave from `source`: the server sees that address.
async fn channel_from(source: &str, address: SocketAddr) -> Channel {
    let source: IpAddr = source.parse().unwrap();
    Endpoint::from_shared(format!("http://{address}"))
        .unwrap()
        .connect_with_connector(tower::service_fn(move |_: Uri| async move {
            let socket = TcpSocket::new_v4()?;
            socket.bind(SocketAddr::new(source, 0))?;
            let stream = socket.connect(address).await?;
            Ok::<_, std::io::Error>(TokioIo::new(stream))
        }))
        .await
        .unwrap()
}

/// A gRPC channel from `source` whose connections start with `header` (a PROXY header, as a
/// load balancer sends it).
async fn channel_with_header(source: &str, address: SocketAddr, header: Vec<u8>) -> Channel {
    use tokio::io::AsyncWriteExt;
    let source: IpAddr = source.parse().unwrap();
    Endpoint::from_shared(format!("http://{address}"))
        .unwrap()
        .connect_with_connector_lazy(tower::service_fn(move |_: Uri| {
            let header = header.clone();
            async move {
                let socket = TcpSocket::new_v4()?;
                socket.bind(SocketAddr::new(source, 0))?;
                let mut stream = socket.connect(address).await?;
                stream.write_all(&header).await?;
                Ok::<_, std::io::Error>(TokioIo::new(stream))
            }
        }))
}

/// A PROXY version 2 header: a TCP connection over IPv4 from `client` (`local`: the
/// balancer's own connection, no client).
fn proxy_v2(client: SocketAddr, local: bool) -> Vec<u8> {
    let mut header = b"\r\n\r\n\0\r\nQUIT\n".to_vec();
    header.push(if local { 0x20 } else { 0x21 });
    header.push(0x11);
    header.extend_from_slice(&12u16.to_be_bytes());
    let IpAddr::V4(ip) = client.ip() else {
        panic!("an IPv4 client")
    };
    header.extend_from_slice(&ip.octets());
    header.extend_from_slice(&[127, 0, 0, 1]);
    header.extend_from_slice(&client.port().to_be_bytes());
    header.extend_from_slice(&50051u16.to_be_bytes());
    header
}

fn code_and_message(status: &Status) -> String {
    format!("{:?}: {}", status.code(), status.message())
}

// ---------------------------------------------------------------------------------------------
// Streams

/// A live match with a human seat 0 (joined: its token) against `random`.
async fn live_match(matches: &mut MatchesClient<Channel>) -> (String, String) {
    let id = matches
        .create_match(crate::common::create(
            "pokeros",
            &[("board_size", "3")],
            &["human", "random"],
            7,
        ))
        .await
        .unwrap()
        .into_inner()
        .match_id;
    let token = crate::common::join(matches, &id, 0).await;
    (id, token)
}

#[tokio::test]
async fn one_address_cannot_open_every_stream() {
    // The default share: a quarter of --max-streams.
    let server = Binary::start(&["--max-streams", "40"]);
    let victim = server.channel_from(OTHERS[0]).await;
    let mut victim_matches = MatchesClient::new(victim.clone());
    let (id, token) = live_match(&mut victim_matches).await;

    // The attacker opens spectator streams until refused: its share, ten, stay open.
    let attacker = server.channel_from(ATTACKER).await;
    let mut attacker_matches = MatchesClient::new(attacker);
    let mut held = Vec::new();
    let refused = loop {
        match attacker_matches
            .watch_spectator(pb::WatchSpectatorRequest {
                match_id: id.clone(),
                presence: false,
            })
            .await
        {
            Ok(stream) => held.push(stream.into_inner()),
            Err(status) => break status,
        }
        assert!(held.len() <= 40, "no share held the attacker back");
    };
    assert_eq!(held.len(), 10, "{}", code_and_message(&refused));
    assert_eq!(refused.code(), Code::ResourceExhausted);
    assert!(
        refused.message().contains("--max-streams-per-peer")
            && refused.message().contains(ATTACKER),
        "{}",
        refused.message()
    );
    // The attacker's streams are open: each has its first event.
    for stream in &mut held {
        stream.next().await.unwrap().unwrap();
    }

    // Another address still gets its seat's streams, every time...
    let mut watchers = Vec::new();
    for _ in 0..5 {
        let mut stream = victim_matches
            .watch_seat(with_token(
                pb::WatchSeatRequest {
                    match_id: id.clone(),
                    seat: 0,
                    ..Default::default()
                },
                &token,
            ))
            .await
            .unwrap()
            .into_inner();
        stream.next().await.unwrap().unwrap();
        watchers.push(stream);
    }
    // ... and its ladder bot's Events stream.
    let mut ladder = LadderClient::new(server.channel_from(OTHERS[1]).await);
    let bot = ladder
        .register_bot(pb::RegisterBotRequest {
            name: "steady".into(),
            games: vec!["pokeros(board_size=3)".into()],
        })
        .await
        .unwrap()
        .into_inner();
    let mut events = ladder
        .events(bot_request(&bot, None))
        .await
        .unwrap()
        .into_inner();
    let first = events.next().await.unwrap().unwrap();
    assert_eq!(first.kind, pb::LadderEventKind::Connected as i32);

    // Closing the attacker's streams frees its share.
    drop(held);
    tokio::time::sleep(Duration::from_millis(200)).await;
    attacker_matches
        .watch_spectator(pb::WatchSpectatorRequest {
            match_id: id.clone(),
            presence: false,
        })
        .await
        .unwrap();
}

// ---------------------------------------------------------------------------------------------
// Behind a balancer: the PROXY protocol

/// Creates a match through `channel`; its status when refused.
async fn create_through(channel: &Channel) -> Result<String, Status> {
    MatchesClient::new(channel.clone())
        .create_match(crate::common::create(
            "pokeros",
            &[("board_size", "3")],
            &["human", "random"],
            7,
        ))
        .await
        .map(|reply| reply.into_inner().match_id)
}

#[tokio::test]
async fn a_trusted_balancers_proxy_header_names_the_client_every_share_counts() {
    // The balancer is 127.0.0.2; each client may hold two matches.
    let server = Binary::start(&[
        "--proxy-protocol-from",
        "127.0.0.2",
        "--max-matches-per-peer",
        "2",
    ]);
    let client_a: SocketAddr = "10.0.0.7:4000".parse().unwrap();
    let through_balancer_a =
        channel_with_header(ATTACKER, server.address, proxy_v2(client_a, false)).await;
    for _ in 0..2 {
        create_through(&through_balancer_a).await.unwrap();
    }
    let refused = create_through(&through_balancer_a).await.unwrap_err();
    assert_eq!(refused.code(), Code::ResourceExhausted, "{refused:?}");
    assert!(refused.message().contains("10.0.0.7"), "{refused:?}");

    // Another client behind the same balancer, in version 1: its own share.
    let v1 = b"PROXY TCP4 10.0.0.8 127.0.0.1 5555 50051\r\n".to_vec();
    let through_balancer_b = channel_with_header(ATTACKER, server.address, v1).await;
    create_through(&through_balancer_b).await.unwrap();
    // The balancer's own connections (no header, or a LOCAL header): the balancer's share.
    let own = server.channel_from(ATTACKER).await;
    create_through(&own).await.unwrap();
    let local = channel_with_header(ATTACKER, server.address, proxy_v2(client_a, true)).await;
    create_through(&local).await.unwrap();
    let refused = create_through(&own).await.unwrap_err();
    assert!(refused.message().contains(ATTACKER), "{refused:?}");

    // A client that is not the balancer cannot claim an address: its header is not read,
    // and the connection fails as HTTP/2.
    let spoofed = channel_with_header(OTHERS[0], server.address, proxy_v2(client_a, false)).await;
    let failed = create_through(&spoofed).await.unwrap_err();
    assert_ne!(failed.code(), Code::ResourceExhausted, "{failed:?}");
    let direct = server.channel_from(OTHERS[0]).await;
    create_through(&direct).await.unwrap();

    // The access log names the clients the headers named.
    let log = server.log();
    assert!(
        log.contains("10.0.0.7:4000") && log.contains("10.0.0.8:5555"),
        "{log}"
    );
}

// ---------------------------------------------------------------------------------------------
// The ladder

fn bot_request(
    bot: &pb::RegisterBotResponse,
    max_games: Option<u32>,
) -> Request<pb::EventsRequest> {
    let mut request = Request::new(pb::EventsRequest {
        name: bot.name.clone(),
        max_games,
    });
    request
        .metadata_mut()
        .insert("x-bot-token", bot.bot_token.parse().unwrap());
    request
}

async fn register(
    ladder: &mut LadderClient<Channel>,
    name: &str,
    games: &[String],
) -> Result<pb::RegisterBotResponse, Status> {
    ladder
        .register_bot(pb::RegisterBotRequest {
            name: name.into(),
            games: games.to_vec(),
        })
        .await
        .map(|r| r.into_inner())
}

/// Plays one seat of a ladder game to its end: the first legal action whenever it may act.
async fn play_seat(mut matches: MatchesClient<Channel>, id: String, seat: pb::LadderSeat) {
    let lean = Some(pb::ViewOptions {
        omit_view_json: true,
        omit_observation: true,
        omit_observation_text: true,
        omit_action_texts: true,
        with_sample_state: false,
    });
    loop {
        let view = matches
            .get_view(with_token(
                pb::GetViewRequest {
                    match_id: id.clone(),
                    seat: seat.seat,
                    view_options: lean,
                },
                &seat.seat_token,
            ))
            .await;
        let Ok(view) = view.map(|v| v.into_inner()) else {
            return;
        };
        if view.is_terminal {
            return;
        }
        if view.may_act
            && let Some(action) = view.legal_actions.first()
        {
            let _ = matches
                .act(with_token(
                    pb::ActRequest {
                        match_id: id.clone(),
                        seat: seat.seat,
                        action: Some(pb::act_request::Action::ActionId(action.id)),
                        view_options: lean,
                        expected_version: Some(view.version),
                    },
                    &seat.seat_token,
                ))
                .await;
        } else {
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
    }
}

/// A bot that plays every game it is placed in; returns the games it finished.
fn playing_bot(
    channel: Channel,
    bot: pb::RegisterBotResponse,
) -> (Arc<Mutex<u64>>, tokio::task::JoinHandle<()>) {
    let finished = Arc::new(Mutex::new(0u64));
    let count = finished.clone();
    let task = tokio::spawn(async move {
        let mut ladder = LadderClient::new(channel.clone());
        let mut events = ladder
            .events(bot_request(&bot, None))
            .await
            .unwrap()
            .into_inner();
        while let Some(Ok(event)) = events.next().await {
            if event.kind == pb::LadderEventKind::GameStarted as i32 {
                let id = event.game.unwrap().match_id;
                for seat in event.seats {
                    tokio::spawn(play_seat(
                        MatchesClient::new(channel.clone()),
                        id.clone(),
                        seat,
                    ));
                }
            } else if event.kind == pb::LadderEventKind::GameFinished as i32 {
                *count.lock().unwrap() += 1;
            }
        }
    });
    (finished, task)
}

/// What an idle bot's stream said: when it was placed in a game, and its pauses.
#[derive(Default)]
struct Idle {
    placed: Vec<Instant>,
    paused: Vec<pb::LadderEvent>,
}

/// A bot that connects and never moves.
fn idle_bot(mut ladder: LadderClient<Channel>, bot: pb::RegisterBotResponse) -> Arc<Mutex<Idle>> {
    let seen = Arc::new(Mutex::new(Idle::default()));
    let kept = seen.clone();
    tokio::spawn(async move {
        let mut events = ladder
            .events(bot_request(&bot, None))
            .await
            .unwrap()
            .into_inner();
        while let Some(Ok(event)) = events.next().await {
            let mut seen = kept.lock().unwrap();
            if event.kind == pb::LadderEventKind::GameStarted as i32 {
                seen.placed.push(Instant::now());
            } else if event.kind == pb::LadderEventKind::Paused as i32 {
                seen.paused.push(event);
            }
        }
    });
    seen
}

#[tokio::test]
async fn a_bot_that_plays_keeps_its_games_beside_bots_that_never_move() {
    const GAME: &str = "pokeros(board_size=3)";
    const SPELL: Duration = Duration::from_secs(8);
    let server = Binary::start(&[
        "--ladder-house",
        "random,heuristic",
        "--ladder-move-ms",
        "200",
        "--ladder-grace-ms",
        "0",
        "--ladder-max-games",
        "8",
    ]);
    let games = vec![GAME.to_string()];
    let player_channel = server.channel_from(OTHERS[0]).await;
    let mut ladder = LadderClient::new(player_channel.clone());
    let player = register(&mut ladder, "player", &games).await.unwrap();
    let (finished, task) = playing_bot(player_channel, player);

    // Alone, for a spell: what it gets without the attacker.
    tokio::time::sleep(SPELL).await;
    let alone = *finished.lock().unwrap();
    assert!(alone >= 10, "the bot played {alone} games alone");

    // Eight bots from one address that never move, for as long again.
    let attacker = server.channel_from(ATTACKER).await;
    let mut attacker_ladder = LadderClient::new(attacker);
    let mut idle = Vec::new();
    for i in 0..8 {
        let bot = register(&mut attacker_ladder, &format!("idle-{i}"), &games)
            .await
            .unwrap();
        idle.push(idle_bot(attacker_ladder.clone(), bot));
    }
    let beside_from = Instant::now();
    tokio::time::sleep(SPELL).await;
    let beside = *finished.lock().unwrap() - alone;
    task.abort();
    let log = server.log();
    // Half a spell in, the second half of the idle bots' placements against the first.
    let half = beside_from + SPELL / 2;
    let (mut early, mut late, mut paused) = (0, 0, 0);
    for bot in &idle {
        let seen = bot.lock().unwrap();
        early += seen.placed.iter().filter(|&&t| t < half).count();
        late += seen.placed.iter().filter(|&&t| t >= half).count();
        paused += seen.paused.len();
        // Each pause at least the move time, growing to four move times.
        let pauses: Vec<u64> = seen.paused.iter().map(|e| e.paused_ms).collect();
        assert!(
            pauses.iter().all(|&ms| (200..=800).contains(&ms)),
            "{pauses:?}"
        );
        assert!(pauses.windows(2).all(|w| w[0] <= w[1]), "{pauses:?}");
        assert!(seen.paused.iter().all(|e| e.forfeits_in_a_row >= 2));
        if pauses.len() >= 3 {
            assert_eq!(pauses.last(), Some(&800), "{pauses:?}");
        }
    }
    eprintln!(
        "the playing bot: {alone} games alone, {beside} beside 8 idle bots; the idle bots \
         placed {early} times in the first half, {late} in the second; paused {paused} times"
    );
    // A clear majority of what it played alone (without shares it fell to about 1%).
    assert!(
        beside * 5 >= alone * 3,
        "the playing bot played {beside} games beside the idle bots, {alone} alone"
    );
    // The idle bots are placed less and less, and told why.
    assert!(early > 0, "the idle bots were never placed");
    assert!(late <= early, "placed {early} times, then {late}");
    assert!(paused >= 8, "{paused} pauses");
    assert!(log.contains("keeps forfeiting"), "the pause is logged");
}

/// `pokeros` game strings, each its own ladder.
fn game_strings(n: usize) -> Vec<String> {
    (3..=31)
        .flat_map(|board| {
            (0..=5).map(move |hand| format!("pokeros(board_size={board},hand_size={hand})"))
        })
        .take(n)
        .collect()
}

#[tokio::test]
async fn registrations_and_ladders_are_capped_and_ladders_are_listed_by_page() {
    let server = Binary::start(&[
        "--ladder-max-bots-per-peer",
        "4",
        "--ladder-max-ladders",
        "150",
        "--max-message-size",
        "65536",
    ]);
    let games = game_strings(170);
    // One address registers its share of bots, each with new ladders; one more is refused.
    let mut attacker = LadderClient::new(server.channel_from(ATTACKER).await);
    for i in 0..4 {
        register(
            &mut attacker,
            &format!("many-{i}"),
            &games[i * 16..(i + 1) * 16],
        )
        .await
        .unwrap();
    }
    let refused = register(&mut attacker, "many-4", &games[64..65])
        .await
        .unwrap_err();
    assert_eq!(
        refused.code(),
        Code::ResourceExhausted,
        "{}",
        code_and_message(&refused)
    );
    assert!(
        refused.message().contains("--ladder-max-bots-per-peer")
            && refused.message().contains(ATTACKER),
        "{}",
        refused.message()
    );
    // Other addresses register until the server runs its most ladders: 150.
    let mut next = 64;
    for (i, n) in [16, 16, 16, 16, 16, 6].into_iter().enumerate() {
        let mut other = LadderClient::new(server.channel_from(OTHERS[i % 3]).await);
        register(&mut other, &format!("other-{i}"), &games[next..next + n])
            .await
            .unwrap();
        next += n;
    }
    assert_eq!(next, 150);
    let mut other = LadderClient::new(server.channel_from(OTHERS[2]).await);
    let refused = register(
        &mut other,
        "one-too-many",
        &games[..2]
            .iter()
            .chain(&games[150..151])
            .cloned()
            .collect::<Vec<_>>(),
    )
    .await
    .unwrap_err();
    assert_eq!(
        refused.code(),
        Code::ResourceExhausted,
        "{}",
        code_and_message(&refused)
    );
    assert!(
        refused.message().contains("--ladder-max-ladders"),
        "{}",
        refused.message()
    );
    // A bot for ladders that exist is still registered.
    let mut other = LadderClient::new(server.channel_from(OTHERS[0]).await);
    register(&mut other, "late", &games[..2]).await.unwrap();

    // Every ladder, by page: the default page of 100, then the rest.
    let mut listed = Vec::new();
    let mut token = String::new();
    let mut pages = 0;
    loop {
        let reply = other
            .list_ladders(pb::ListLaddersRequest {
                page_size: 0,
                page_token: token.clone(),
            })
            .await
            .unwrap()
            .into_inner();
        pages += 1;
        assert!(reply.ladders.len() <= 100);
        assert!(!reply.house_bots.is_empty());
        listed.extend(reply.ladders.into_iter().map(|l| l.game));
        token = reply.next_page_token;
        if token.is_empty() {
            break;
        }
    }
    assert_eq!(pages, 2);
    let distinct: BTreeSet<&String> = listed.iter().collect();
    assert_eq!((listed.len(), distinct.len()), (150, 150));
    assert!(listed.windows(2).all(|w| w[0] < w[1]), "by game string");
    // Small pages give the same ladders.
    let mut small = Vec::new();
    let mut token = String::new();
    loop {
        let reply = other
            .list_ladders(pb::ListLaddersRequest {
                page_size: 7,
                page_token: token.clone(),
            })
            .await
            .unwrap()
            .into_inner();
        assert!(reply.ladders.len() <= 7);
        small.extend(reply.ladders.into_iter().map(|l| l.game));
        token = reply.next_page_token;
        if token.is_empty() {
            break;
        }
    }
    assert_eq!(small, listed);
    for (page_size, page_token) in [(1001, String::new()), (10, "not a token".to_string())] {
        let refused = other
            .list_ladders(pb::ListLaddersRequest {
                page_size,
                page_token,
            })
            .await
            .unwrap_err();
        assert_eq!(
            refused.code(),
            Code::InvalidArgument,
            "{}",
            code_and_message(&refused)
        );
    }
}

// ---------------------------------------------------------------------------------------------
// The store

/// A SQLite store at `path` with one live match (a human seat joined, against `random`) made
/// by the server; returns the match's id and its seat's token.
async fn make_store(path: &Path) -> (String, String) {
    let database = format!("sqlite://{}", path.display());
    let server = Binary::start(&["--database", &database]);
    let mut matches = MatchesClient::new(server.channel_from(OTHERS[0]).await);
    let made = live_match(&mut matches).await;
    drop(matches);
    stop(server).await;
    made
}

/// Stops the server with SIGTERM and waits for it (on the runtime, whose client connections
/// must close for the server's graceful stop to end).
async fn stop(mut server: Binary) {
    unsafe {
        libc::kill(server.child.id() as i32, libc::SIGTERM);
    }
    let deadline = Instant::now() + Duration::from_secs(30);
    let status = loop {
        if let Some(status) = server.child.try_wait().unwrap() {
            break status;
        }
        assert!(Instant::now() < deadline, "the server did not stop");
        tokio::time::sleep(Duration::from_millis(20)).await;
    };
    assert!(status.success(), "{status}: {}", server.log());
}

/// Whether this process can create a file in `dir`.
fn can_write_in(dir: &Path) -> bool {
    let probe = dir.join("probe");
    let made = std::fs::write(&probe, b"x").is_ok();
    let _ = std::fs::remove_file(&probe);
    made
}

/// Makes `dir` read-only for this process, the way that works for its user: the permission
/// bits for anyone but root; for root, whom they do not stop, the immutable attribute
/// (`chattr +i`), else a read-only bind mount over it. Returns how to undo it. Panics, saying
/// why, when none stops a write, rather than let the test pass without a read-only directory.
fn make_read_only(dir: &Path) -> Box<dyn FnOnce()> {
    use std::os::unix::fs::PermissionsExt;
    let owned = dir.to_path_buf();
    std::fs::set_permissions(dir, std::fs::Permissions::from_mode(0o555)).unwrap();
    if !can_write_in(dir) {
        return Box::new(move || {
            std::fs::set_permissions(&owned, std::fs::Permissions::from_mode(0o755)).unwrap();
        });
    }
    // Root: the bits do not stop it.
    std::fs::set_permissions(dir, std::fs::Permissions::from_mode(0o755)).unwrap();
    let chattr = |flag: &str, dir: &Path| {
        Command::new("chattr")
            .arg(flag)
            .arg(dir)
            .status()
            .is_ok_and(|s| s.success())
    };
    if chattr("+i", dir) {
        if !can_write_in(dir) {
            return Box::new(move || {
                chattr("-i", &owned);
            });
        }
        chattr("-i", dir);
    }
    let mount = |args: &[&str]| {
        Command::new("mount")
            .args(args)
            .status()
            .is_ok_and(|s| s.success())
    };
    let text = dir.to_str().unwrap();
    if mount(&["--bind", text, text]) {
        if mount(&["-o", "remount,bind,ro", text]) && !can_write_in(dir) {
            return Box::new(move || {
                mount(&["-l", owned.to_str().unwrap()]);
                let _ = Command::new("umount").arg(&owned).status();
            });
        }
        let _ = Command::new("umount").arg(dir).status();
    }
    panic!(
        "cannot make {} read-only for this process (uid {}): the permission bits do not stop \
         it, and neither `chattr +i` nor a read-only bind mount worked here; the read-only \
         store test needs one of them",
        dir.display(),
        unsafe { libc::geteuid() }
    );
}

#[tokio::test]
async fn a_store_in_a_read_only_directory_says_it_cannot_be_written() {
    let dir = temp_dir("read-only-store").join("store");
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("store.sqlite3");
    make_store(&path).await;
    let undo = make_read_only(&dir);
    let done = Command::new(env!("CARGO_BIN_EXE_checkraise-server"))
        .args(["--address", "127.0.0.1:0", "--database"])
        .arg(format!("sqlite://{}", path.display()))
        .output()
        .unwrap();
    undo();
    let stderr = String::from_utf8_lossy(&done.stderr);
    assert_eq!(done.status.code(), Some(1), "{stderr}");
    let error = stderr.trim().lines().last().unwrap();
    assert!(
        error.contains(&path.display().to_string())
            && error.contains("cannot be written")
            && error.contains("read-only")
            && error.contains(&dir.display().to_string()),
        "{error}"
    );
    assert!(!error.contains("damaged"), "{error}");
    // Writable again, the same store opens and serves.
    let database = format!("sqlite://{}", path.display());
    let server = Binary::start(&["--database", &database]);
    let mut matches = MatchesClient::new(server.channel_from(OTHERS[0]).await);
    let listed = matches
        .list_matches(pb::ListMatchesRequest::default())
        .await
        .unwrap()
        .into_inner();
    assert_eq!(listed.matches.len(), 1);
    drop(matches);
    stop(server).await;
}

#[tokio::test]
async fn an_unreadable_stored_row_is_data_loss_everywhere() {
    let dir = temp_dir("unreadable-row");
    let path = dir.join("store.sqlite3");
    let (id, token) = make_store(&path).await;
    // The row's parameters overwritten with what no store writes.
    {
        use sqlx::Connection;
        let mut db = sqlx::SqliteConnection::connect(&format!("sqlite://{}", path.display()))
            .await
            .unwrap();
        let done =
            sqlx::query("UPDATE matches SET parameters = '{\"board_size\": 3' WHERE id = $1")
                .bind(&id)
                .execute(&mut db)
                .await
                .unwrap();
        assert_eq!(done.rows_affected(), 1);
        db.close().await.unwrap();
    }
    let database = format!("sqlite://{}", path.display());
    let server = Binary::start(&["--database", &database]);
    let mut matches = MatchesClient::new(server.channel_from(OTHERS[0]).await);
    let view = matches
        .get_view(with_token(
            pb::GetViewRequest {
                match_id: id.clone(),
                seat: 0,
                view_options: None,
            },
            &token,
        ))
        .await
        .unwrap_err();
    let join = matches
        .join_seat(pb::JoinSeatRequest {
            match_id: id.clone(),
            seat: Some(1),
            ..Default::default()
        })
        .await
        .unwrap_err();
    let replay = matches
        .get_replay(pb::GetReplayRequest {
            match_id: id.clone(),
            ..Default::default()
        })
        .await
        .unwrap_err();
    for status in [&view, &join, &replay] {
        assert_eq!(
            status.code(),
            Code::DataLoss,
            "{}",
            code_and_message(status)
        );
        assert!(
            status.message().contains(&id)
                && status.message().contains("its parameters do not read"),
            "{}",
            status.message()
        );
    }
    assert_eq!(view.message(), replay.message(), "one message everywhere");
    // Listed by id as unreadable, never with a made-up game.
    let listed = matches
        .list_matches(pb::ListMatchesRequest::default())
        .await
        .unwrap()
        .into_inner();
    assert!(
        listed.matches.iter().all(|m| m.match_id != id),
        "{listed:?}"
    );
    assert_eq!(listed.unreadable_match_ids, std::slice::from_ref(&id));
    drop(matches);
    stop(server).await;
    std::fs::remove_dir_all(&dir).unwrap();
}
