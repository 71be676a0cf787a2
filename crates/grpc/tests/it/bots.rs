//! Bot spec strings in match seats, end to end from a tonic client against the server started
//! in-process on a free port: IS-MCTS seats play whole matches, bad specs and specs over
//! `--max-bot-ms` are INVALID_ARGUMENT, and bots think on the blocking pool, so the server
//! answers health checks while they search.

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use crate::common::{TestServer, create, join, with_token};
use checkraise_grpc::config::Config;
use checkraise_grpc::live_match::{LiveMatch, Seat, SeatKind};
use checkraise_grpc::pb;
use checkraise_grpc::pb::catalog_client::CatalogClient;
use checkraise_grpc::pb::matches_client::MatchesClient;
use clap::Parser;
use tonic::transport::Channel;
use tonic::{Code, Request, Status};
use tonic_health::pb::health_check_response::ServingStatus;
use tonic_health::pb::health_client::HealthClient;

fn config_with_cap(max_bot_ms: u64) -> Config {
    Config {
        max_bot_ms,
        ..Config::in_memory()
    }
}

/// Seat 0's view of match `id`.
async fn seat_view(matches: &mut MatchesClient<Channel>, id: &str, token: &str) -> pb::SeatView {
    matches
        .get_view(with_token(
            pb::GetViewRequest {
                match_id: id.to_string(),
                seat: 0,
                view_options: None,
            },
            token,
        ))
        .await
        .unwrap()
        .into_inner()
}

#[test]
fn max_bot_ms_is_a_flag_with_a_default_of_two_seconds() {
    assert_eq!(Config::default().max_bot_ms, 2000);
    let config = Config::try_parse_from(["checkraise-server", "--max-bot-ms", "50"]).unwrap();
    assert_eq!(config.max_bot_ms, 50);
    assert!(Config::try_parse_from(["checkraise-server", "--max-bot-ms", "0"]).is_err());
}

#[test]
fn bot_threads_bound_the_blocking_pool() {
    let cores = std::thread::available_parallelism().unwrap().get();
    assert_eq!(Config::default().bot_threads(), 2 * cores);
    let config = Config::try_parse_from(["checkraise-server", "--bot-threads", "3"]).unwrap();
    assert_eq!(config.bot_threads(), 3);
    assert!(Config::try_parse_from(["checkraise-server", "--bot-threads", "0"]).is_err());
    assert!(Config::try_parse_from(["checkraise-server", "--bot-threads", "513"]).is_err());
}

#[test]
fn a_creation_told_to_stop_plays_no_bot_move() {
    // CreateMatch sets the flag when its request is dropped (client cancelled, deadline passed).
    let game = checkraise_core::make_game::<&str, &str>("pokeros", []).unwrap();
    let bot = |spec: &str| Seat {
        connected: false,
        kind_name: spec.to_string(),
        kind: SeatKind::Bot(checkraise_core::make_bot("pokeros", spec).unwrap()),
    };
    let stop = AtomicBool::new(true);
    let seats = vec![bot("ismcts(iterations=10)"), bot("random")];
    let Err(status) = LiveMatch::new_unless("m".into(), game.clone(), 1, seats, &stop) else {
        panic!("the bots played although told to stop");
    };
    assert_eq!(Status::from(status).code(), Code::Cancelled);
    stop.store(false, Ordering::Relaxed);
    let seats = vec![bot("random"), bot("random")];
    let live = LiveMatch::new_unless("m".into(), game, 1, seats, &stop).unwrap();
    assert!(live.is_finished() && live.has_bots());
}

#[tokio::test]
async fn a_human_plays_poker_chess_to_the_end_against_an_ismcts_bot() {
    let server = TestServer::start_on_own_runtime(config_with_cap(500)).await;
    let mut catalog = CatalogClient::new(server.channel.clone());
    let game = catalog
        .get_game(pb::GetGameRequest {
            name: "poker_chess".into(),
            parameters: HashMap::new(),
        })
        .await
        .unwrap()
        .into_inner()
        .game
        .unwrap();
    assert!(
        game.bot_kinds.iter().any(|k| k == "ismcts"),
        "{:?}",
        game.bot_kinds
    );

    let mut matches = server.matches();
    let created = matches
        .create_match(create(
            "poker_chess",
            &[],
            &["human", "ismcts(iterations=50)"],
            3,
        ))
        .await
        .unwrap()
        .into_inner();
    assert_eq!(created.seats[0].kind, "human");
    assert_eq!(
        created.seats[1].kind,
        "ismcts(iterations=50,max_ms=500,c=0.7,rollout=heuristic)"
    );
    let id = created.match_id;
    let token = join(&mut matches, &id, 0).await;
    // Every change, as the public sees it: the bot's moves among them.
    let mut events = matches
        .watch_spectator(pb::WatchSpectatorRequest {
            match_id: id.clone(),
            presence: false,
        })
        .await
        .unwrap()
        .into_inner();

    let mut view = seat_view(&mut matches, &id, &token).await;
    let mut moves = 0;
    while !view.is_terminal {
        assert!(view.may_act, "only the human seat waits");
        // Cycle through the legal actions (ids and texts), so the game goes somewhere.
        let pick = view.legal_actions[moves % view.legal_actions.len()].clone();
        let action = if moves % 2 == 0 {
            pb::act_request::Action::ActionId(pick.id)
        } else {
            pb::act_request::Action::ActionText(pick.text)
        };
        view = matches
            .act(with_token(
                pb::ActRequest {
                    match_id: id.clone(),
                    seat: 0,
                    action: Some(action),
                    view_options: None,
                    ..Default::default()
                },
                &token,
            ))
            .await
            .unwrap_or_else(|e| panic!("move {moves}: {e:?}"))
            .into_inner();
        moves += 1;
        assert!(moves < 2000, "the match should have ended");
    }
    assert_eq!(view.returns.len(), 2);
    assert_eq!(view.returns.iter().sum::<f64>(), 0.0);

    // The engine applies a bot's move only if it is legal (otherwise the call is INTERNAL),
    // so a whole match without an error is a match of legal bot moves; the stream shows them.
    let mut bot_moves = 0;
    let mut version = None;
    while let Some(event) = events.message().await.unwrap() {
        let event_view = event.view.unwrap();
        if let Some(v) = version {
            assert_eq!(event_view.version, v + 1, "one event per change");
        }
        version = Some(event_view.version);
        assert!(event.own_action.is_none(), "spectators learn no action ids");
        if event.actor == 1 {
            bot_moves += 1;
        }
        if event_view.is_terminal {
            break;
        }
    }
    assert!(bot_moves > 0, "the bot moved");
    println!("poker_chess: {moves} human actions, {bot_moves} ismcts actions");
    server.shutdown().await;
}

#[tokio::test]
async fn bad_bot_specs_are_invalid_argument_naming_the_setting() {
    let server = TestServer::start_on_own_runtime(config_with_cap(300)).await;
    let mut matches = server.matches();
    let refused = |seat: &'static str| {
        let mut matches = matches.clone();
        async move {
            let status = matches
                .create_match(create("pokeros", &[], &["human", seat], 1))
                .await
                .unwrap_err();
            assert_eq!(status.code(), Code::InvalidArgument, "{seat}: {status:?}");
            status.message().to_string()
        }
    };

    let unknown = refused("alphazero").await;
    assert!(unknown.contains("seat 1"), "{unknown}");
    assert!(unknown.contains("unknown bot 'alphazero'"), "{unknown}");
    assert!(
        unknown.contains("random, heuristic, ismcts"),
        "the known bots: {unknown}"
    );
    assert!(unknown.contains("'human'"), "the human hint: {unknown}");

    let bad_value = refused("ismcts(iterations=0)").await;
    assert!(bad_value.contains("'iterations'"), "{bad_value}");
    assert!(bad_value.contains("'0'"), "{bad_value}");
    assert!(bad_value.contains("1 to 1000000"), "{bad_value}");

    let bad_rollout = refused("ismcts(rollout=smart)").await;
    assert!(bad_rollout.contains("'rollout'"), "{bad_rollout}");
    assert!(bad_rollout.contains("'smart'"), "{bad_rollout}");

    let unknown_setting = refused("ismcts(depth=3)").await;
    assert!(unknown_setting.contains("'depth'"), "{unknown_setting}");
    assert!(
        unknown_setting.contains("iterations, max_ms, c, rollout, seed, belief, path"),
        "{unknown_setting}"
    );

    let malformed = refused("ismcts(iterations=3").await;
    assert!(malformed.contains("kind(name=value"), "{malformed}");

    let over_cap = refused("ismcts(max_ms=5000)").await;
    assert!(over_cap.contains("'max_ms'"), "{over_cap}");
    assert!(over_cap.contains("'5000'"), "{over_cap}");
    assert!(over_cap.contains("at most 300"), "{over_cap}");
    assert!(over_cap.contains("--max-bot-ms"), "{over_cap}");

    let count = matches
        .create_match(create("pokeros", &[], &["human"], 1))
        .await
        .unwrap_err();
    assert_eq!(count.code(), Code::InvalidArgument);
    assert!(count.message().contains("ismcts"), "{}", count.message());

    // Accepted specs come back canonical, with the budget the server gives them.
    let kinds = |seats: &[&str]| {
        let mut matches = matches.clone();
        let request = create("detective_poker", &[], seats, 2);
        async move {
            let created = matches.create_match(request).await.unwrap().into_inner();
            created
                .seats
                .into_iter()
                .map(|s| s.kind)
                .collect::<Vec<String>>()
        }
    };
    assert_eq!(
        kinds(&["human", "ismcts(iterations=20)", "random"]).await,
        [
            "human",
            "ismcts(iterations=20,max_ms=300,c=0.7,rollout=heuristic)",
            "random"
        ]
    );
    assert_eq!(
        kinds(&[
            "heuristic",
            " ismcts( rollout = random , max_ms=100, iterations=10, seed=4) ",
            "human"
        ])
        .await,
        [
            "heuristic",
            "ismcts(iterations=10,max_ms=100,c=0.7,rollout=random,seed=4)",
            "human"
        ]
    );
    let at_cap = kinds(&["ismcts(max_ms=300,iterations=5)", "human", "human"]).await;
    assert!(at_cap[0].contains("max_ms=300"), "{at_cap:?}");
    server.shutdown().await;
}

/// A health check, timed (each with a 2 s deadline).
async fn probe(health: &mut HealthClient<Channel>) -> Duration {
    let mut request = Request::new(tonic_health::pb::HealthCheckRequest {
        service: "checkraise.v1.Matches".to_string(),
    });
    request.set_timeout(Duration::from_secs(2));
    let start = Instant::now();
    let reply = health
        .check(request)
        .await
        .expect("a health check answers while bots think")
        .into_inner();
    let took = start.elapsed();
    assert_eq!(reply.status, ServingStatus::Serving as i32);
    took
}

#[tokio::test]
async fn health_checks_answer_while_three_matches_of_ten_ismcts_seats_play() {
    const PROBES: usize = 20;
    let server = TestServer::start_on_own_runtime(config_with_cap(50)).await;
    let mut health = HealthClient::new(server.connect().await);
    // Warm the connection up, so the first probe does not time the handshake.
    probe(&mut health).await;

    let started = Instant::now();
    let creations: Vec<_> = (0..3)
        .map(|i| {
            let mut matches = server.matches();
            tokio::spawn(async move {
                let created = matches
                    .create_match(create(
                        "holdem_chess",
                        &[("players", "10"), ("hands", "2")],
                        &["ismcts"; 10],
                        100 + i,
                    ))
                    .await
                    .unwrap()
                    .into_inner();
                (created, started.elapsed())
            })
        })
        .collect();

    // Let the bots start thinking, then probe while they do.
    tokio::time::sleep(Duration::from_millis(100)).await;
    let mut latencies = Vec::with_capacity(PROBES);
    for _ in 0..PROBES {
        latencies.push(probe(&mut health).await);
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let probing = started.elapsed();
    let running = creations.iter().filter(|c| !c.is_finished()).count();

    let mut matches = server.matches();
    let mut finished_at = Vec::new();
    for creation in creations {
        let (created, at) = creation.await.unwrap();
        assert!(
            created
                .seats
                .iter()
                .all(|s| s.kind == "ismcts(iterations=1000,max_ms=50,c=0.7,rollout=heuristic)"),
            "{:?}",
            created.seats
        );
        let over = matches
            .get_spectator_view(pb::GetSpectatorViewRequest {
                match_id: created.match_id,
            })
            .await
            .unwrap()
            .into_inner();
        assert!(over.is_terminal, "an all-bot match plays to the end");
        assert_eq!(over.returns.len(), 10);
        finished_at.push(at);
    }

    latencies.sort();
    let median = latencies[PROBES / 2];
    let max = latencies[PROBES - 1];
    println!(
        "health probes while 3 matches of 10 ismcts seats played: median {median:?}, max \
         {max:?}, min {:?}; probing took {probing:?}; matches finished at {finished_at:?}",
        latencies[0]
    );
    assert_eq!(
        running, 3,
        "every match plays for longer than the probes take, unless probes waited for the \
         bots (the server's workers stalled): probing took {probing:?}, matches finished at \
         {finished_at:?}"
    );
    assert!(
        median < Duration::from_millis(50),
        "median health-check latency {median:?} (max {max:?}) while bots think"
    );
    server.shutdown().await;
}

#[tokio::test]
async fn requests_waiting_for_a_thinking_bot_do_not_stall_the_server() {
    // Each bot action thinks for the whole second the server allows.
    let server = TestServer::start_on_own_runtime(config_with_cap(1000)).await;
    let mut health = HealthClient::new(server.connect().await);
    probe(&mut health).await;
    let mut matches = server.matches();
    let id = matches
        .create_match(create(
            "poker_chess",
            &[],
            &["human", "ismcts(iterations=1000000)"],
            9,
        ))
        .await
        .unwrap()
        .into_inner()
        .match_id;
    let token = join(&mut matches, &id, 0).await;
    let act = |matches: &MatchesClient<Channel>, action_id: u32| {
        let mut matches = matches.clone();
        let request = with_token(
            pb::ActRequest {
                match_id: id.clone(),
                seat: 0,
                action: Some(pb::act_request::Action::ActionId(action_id)),
                view_options: None,
                ..Default::default()
            },
            &token,
        );
        tokio::spawn(async move { matches.act(request).await.unwrap().into_inner() })
    };
    let mut view = seat_view(&mut matches, &id, &token).await;
    // Act until an Act is still running after 100 ms: the bot is thinking, match locked.
    let acting = loop {
        assert!(view.may_act && !view.is_terminal);
        let acting = act(&matches, view.legal_actions[0].id);
        tokio::time::sleep(Duration::from_millis(100)).await;
        if !acting.is_finished() {
            break acting;
        }
        view = acting.await.unwrap();
    };
    // More requests waiting for the match's lock than the server has workers.
    let spectators: Vec<_> = (0..4)
        .map(|_| {
            let mut matches = matches.clone();
            let request = pb::GetSpectatorViewRequest {
                match_id: id.clone(),
            };
            tokio::spawn(async move { matches.get_spectator_view(request).await })
        })
        .collect();
    tokio::time::sleep(Duration::from_millis(20)).await;
    let mut latencies = Vec::new();
    for _ in 0..10 {
        latencies.push(probe(&mut health).await);
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    let waiting = spectators.iter().filter(|s| !s.is_finished()).count();
    let still_acting = !acting.is_finished();

    let after = acting.await.unwrap();
    for spectator in spectators {
        let seen = spectator.await.unwrap().unwrap().into_inner();
        assert_eq!(
            seen.version, after.version,
            "a spectator waiting for the lock sees the match after the bot's move"
        );
    }
    latencies.sort();
    println!(
        "health probes while 4 requests waited on a thinking bot: median {:?}, max {:?}",
        latencies[5], latencies[9]
    );
    assert!(
        still_acting && waiting == 4,
        "the bot's move and the spectators waiting for it outlast the probes, unless a probe \
         waited for the bot too (the server's workers stalled): probes {latencies:?}"
    );
    assert!(
        latencies[5] < Duration::from_millis(50),
        "median health-check latency {:?} while requests wait on a thinking bot",
        latencies[5]
    );
    server.shutdown().await;
}
