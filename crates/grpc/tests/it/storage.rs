//! Durable matches on SQLite: a restarted server resumes its matches (tokens, views, bots,
//! held simultaneous choices), tokens are stored only as hashes, and `Act` and `JoinSeat`
//! are safe to retry.

use crate::common::{TestServer, create, temp_dir, with_token};
use checkraise_grpc::config::Config;
use checkraise_grpc::pb;
use checkraise_grpc::pb::matches_client::MatchesClient;
use tonic::Code;
use tonic::transport::Channel;

fn config(database: &str) -> Config {
    Config {
        database: database.to_string(),
        ..Config::in_memory()
    }
}

async fn view(
    matches: &mut MatchesClient<Channel>,
    id: &str,
    seat: u32,
    token: &str,
) -> pb::SeatView {
    matches
        .get_view(with_token(
            pb::GetViewRequest {
                match_id: id.to_string(),
                seat,
                ..Default::default()
            },
            token,
        ))
        .await
        .unwrap()
        .into_inner()
}

fn act(id: &str, seat: u32, action: u32, expected: Option<u64>) -> pb::ActRequest {
    pb::ActRequest {
        match_id: id.to_string(),
        seat,
        action: Some(pb::act_request::Action::ActionId(action)),
        expected_version: expected,
        ..Default::default()
    }
}

/// Seat `token`'s `request`, as sent.
async fn acted(
    matches: &mut MatchesClient<Channel>,
    request: pb::ActRequest,
    token: &str,
) -> Result<tonic::Response<pb::SeatView>, tonic::Status> {
    matches.act(with_token(request, token)).await
}

/// The public view of match `id`.
async fn spectate(
    matches: &mut MatchesClient<Channel>,
    id: &str,
) -> Result<tonic::Response<pb::SeatView>, tonic::Status> {
    matches
        .get_spectator_view(pb::GetSpectatorViewRequest {
            match_id: id.to_string(),
        })
        .await
}

fn join_request(id: &str, seat: Option<u32>, request_id: &str) -> pb::JoinSeatRequest {
    pb::JoinSeatRequest {
        match_id: id.to_string(),
        seat,
        request_id: request_id.to_string(),
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_restarted_server_resumes_every_match_with_its_tokens_and_bots() {
    let dir = temp_dir("restart");
    let database = format!("sqlite://{}/matches.sqlite3", dir.display());

    // Before: a match against a bot a few moves in, a two-human simultaneous match with one
    // choice held, and a finished all-bot match.
    let server = TestServer::start(config(&database)).await;
    let mut matches = server.matches();
    let bot = matches
        .create_match(create(
            "pokeros",
            &[("board_size", "5")],
            &["human", "heuristic"],
            3,
        ))
        .await
        .unwrap()
        .into_inner()
        .match_id;
    let bot_token = matches
        .join_seat(join_request(
            &bot,
            Some(0),
            "a-request-id-of-the-first-client",
        ))
        .await
        .unwrap()
        .into_inner()
        .seat_token;
    for _ in 0..3 {
        let v = view(&mut matches, &bot, 0, &bot_token).await;
        let applied = acted(
            &mut matches,
            act(&bot, 0, v.legal_actions[0].id, Some(v.version)),
            &bot_token,
        )
        .await
        .unwrap()
        .into_inner();
        assert_eq!(applied.act_status, pb::ActStatus::Applied as i32);
    }
    let simultaneous = matches
        .create_match(create("prediction_chess", &[], &["human", "human"], 5))
        .await
        .unwrap()
        .into_inner()
        .match_id;
    let tokens: Vec<String> = futures_join(&mut matches, &simultaneous).await;
    let held = view(&mut matches, &simultaneous, 0, &tokens[0]).await;
    let after_held = acted(
        &mut matches,
        act(
            &simultaneous,
            0,
            held.legal_actions[0].id,
            Some(held.version),
        ),
        &tokens[0],
    )
    .await
    .unwrap()
    .into_inner();
    assert!(after_held.action_submitted);
    let finished = matches
        .create_match(create(
            "pokeros",
            &[("board_size", "5")],
            &["random", "random"],
            9,
        ))
        .await
        .unwrap()
        .into_inner()
        .match_id;
    let bot_before = view(&mut matches, &bot, 0, &bot_token).await;
    let spectator_before = spectate(&mut matches, &simultaneous)
        .await
        .unwrap()
        .into_inner();
    server.shutdown().await;

    // The database has the tokens' hashes, never the tokens.
    let bytes = std::fs::read(dir.join("matches.sqlite3")).unwrap();
    let wal = std::fs::read(dir.join("matches.sqlite3-wal")).unwrap_or_default();
    for token in tokens.iter().chain([&bot_token]) {
        let contains = |hay: &[u8]| hay.windows(token.len()).any(|w| w == token.as_bytes());
        assert!(
            !contains(&bytes) && !contains(&wal),
            "a token is stored in clear"
        );
    }

    // After: the same matches, the same tokens, the same views.
    let server = TestServer::start(config(&database)).await;
    let mut matches = server.matches();
    let bot_after = view(&mut matches, &bot, 0, &bot_token).await;
    assert_eq!(bot_after.version, bot_before.version);
    assert_eq!(bot_after.view_json, bot_before.view_json);
    assert_eq!(bot_after.legal_actions, bot_before.legal_actions);
    let spectator_after = spectate(&mut matches, &simultaneous)
        .await
        .unwrap()
        .into_inner();
    assert_eq!(spectator_after.view_json, spectator_before.view_json);
    // Seat 0's held choice is still held: choosing again is refused; a retry is recognised.
    let held_after = view(&mut matches, &simultaneous, 0, &tokens[0]).await;
    assert!(held_after.action_submitted && !held_after.may_act);
    let retry = acted(
        &mut matches,
        act(
            &simultaneous,
            0,
            held.legal_actions[0].id,
            Some(held.version),
        ),
        &tokens[0],
    )
    .await
    .unwrap()
    .into_inner();
    assert_eq!(retry.act_status, pb::ActStatus::AlreadyApplied as i32);
    // A finished match is read back while its finished-expiry lasts (so the retry of the
    // call that ended it finds it), over and at the same version.
    let over = spectate(&mut matches, &finished)
        .await
        .unwrap()
        .into_inner();
    assert!(over.is_terminal && over.returns.len() == 2);
    // A wrong token is still refused.
    let refused = matches
        .get_view(with_token(
            pb::GetViewRequest {
                match_id: bot.clone(),
                seat: 0,
                ..Default::default()
            },
            &tokens[1],
        ))
        .await
        .unwrap_err();
    assert_eq!(refused.code(), Code::PermissionDenied);
    // Both matches play to their end, the bot answering after the restart too.
    for (id, seats) in [
        (&bot, vec![(0u32, &bot_token)]),
        (&simultaneous, vec![(0, &tokens[0]), (1, &tokens[1])]),
    ] {
        let mut last = 0;
        loop {
            let mut progressed = false;
            let mut terminal = false;
            for &(seat, token) in &seats {
                let v = view(&mut matches, id, seat, token).await;
                terminal = v.is_terminal;
                if v.may_act {
                    let next = acted(
                        &mut matches,
                        act(id, seat, v.legal_actions[0].id, Some(v.version)),
                        token,
                    )
                    .await
                    .unwrap()
                    .into_inner();
                    assert!(next.version >= last);
                    last = next.version;
                    progressed = true;
                }
            }
            if terminal {
                break;
            }
            assert!(progressed, "match {id} is stuck");
        }
    }
    server.shutdown().await;
    std::fs::remove_dir_all(dir).unwrap();
}

/// Joins both seats of a two-seat match.
async fn futures_join(matches: &mut MatchesClient<Channel>, id: &str) -> Vec<String> {
    let mut tokens = Vec::new();
    for seat in 0..2 {
        tokens.push(
            matches
                .join_seat(join_request(id, Some(seat), ""))
                .await
                .unwrap()
                .into_inner()
                .seat_token,
        );
    }
    tokens
}

#[tokio::test]
async fn act_and_join_are_safe_to_retry() {
    let server = TestServer::start(Config::in_memory()).await;
    let mut matches = server.matches();
    let id = matches
        .create_match(create(
            "pokeros",
            &[("board_size", "5")],
            &["human", "human"],
            1,
        ))
        .await
        .unwrap()
        .into_inner()
        .match_id;
    // JoinSeat with a request id: repeated, the same seat and token; another id, refused.
    let request_id = "0f8fad5b-d9cb-469f-a165-70867728950e";
    let first = matches
        .join_seat(join_request(&id, None, request_id))
        .await
        .unwrap()
        .into_inner();
    assert!(!first.repeated);
    let again = matches
        .join_seat(join_request(&id, None, request_id))
        .await
        .unwrap()
        .into_inner();
    assert_eq!(
        (again.seat, &again.seat_token),
        (first.seat, &first.seat_token)
    );
    assert!(again.repeated);
    let other = matches
        .join_seat(join_request(
            &id,
            Some(first.seat),
            "another-request-id-0000",
        ))
        .await
        .unwrap_err();
    assert_eq!(other.code(), Code::FailedPrecondition, "{other:?}");
    let short = matches
        .join_seat(join_request(&id, None, "short"))
        .await
        .unwrap_err();
    assert_eq!(short.code(), Code::InvalidArgument, "{short:?}");
    let token0 = first.seat_token;
    let token1 = matches
        .join_seat(join_request(&id, None, ""))
        .await
        .unwrap()
        .into_inner()
        .seat_token;

    // Act with expected_version: applied once; the same call again is recognised, not
    // applied twice; another action at that version is refused; a stale version is ABORTED.
    let mover = |v: &pb::SeatView| v.current_player as u32;
    let v0 = view(&mut matches, &id, 0, &token0).await;
    let seat = mover(&v0);
    let token = if seat == 0 { &token0 } else { &token1 };
    let v = view(&mut matches, &id, seat, token).await;
    let (a, b) = (v.legal_actions[0].id, v.legal_actions[1].id);
    let applied = acted(&mut matches, act(&id, seat, a, Some(v.version)), token)
        .await
        .unwrap()
        .into_inner();
    assert_eq!(applied.act_status, pb::ActStatus::Applied as i32);
    assert_eq!(applied.version, v.version + 1);
    let retried = acted(&mut matches, act(&id, seat, a, Some(v.version)), token)
        .await
        .unwrap()
        .into_inner();
    assert_eq!(retried.act_status, pb::ActStatus::AlreadyApplied as i32);
    assert_eq!(retried.version, applied.version, "applied once");
    assert_eq!(retried.view_json, applied.view_json);
    let different = acted(&mut matches, act(&id, seat, b, Some(v.version)), token)
        .await
        .unwrap_err();
    assert_eq!(different.code(), Code::FailedPrecondition, "{different:?}");
    let other_seat = 1 - seat;
    let other_token = if other_seat == 0 { &token0 } else { &token1 };
    let stale = acted(
        &mut matches,
        act(&id, other_seat, 0, Some(v.version)),
        other_token,
    )
    .await
    .unwrap_err();
    assert_eq!(stale.code(), Code::Aborted, "{stale:?}");
    server.shutdown().await;
}

/// Every page of ListMatches for `request`, followed to the end.
async fn list_all(
    matches: &mut MatchesClient<Channel>,
    mut request: pb::ListMatchesRequest,
) -> Vec<pb::MatchSummary> {
    let mut all = Vec::new();
    loop {
        let page = matches
            .list_matches(request.clone())
            .await
            .unwrap()
            .into_inner();
        assert!(page.matches.len() <= request.page_size as usize);
        all.extend(page.matches);
        if page.next_page_token.is_empty() {
            return all;
        }
        request.page_token = page.next_page_token;
    }
}

/// ListMatches and GetReplay, on `database`.
async fn lists_and_replays(database: &str) {
    let server = TestServer::start(config(database)).await;
    let mut matches = server.matches();
    let mut finished = Vec::new();
    for seed in 0..5 {
        let created = matches
            .create_match(create(
                "pokeros",
                &[("board_size", "5")],
                &["random", "heuristic"],
                seed,
            ))
            .await
            .unwrap()
            .into_inner();
        finished.push(created.match_id);
    }
    let live = matches
        .create_match(create("prediction_chess", &[], &["human", "random"], 1))
        .await
        .unwrap()
        .into_inner()
        .match_id;
    let token = matches
        .join_seat(join_request(&live, Some(0), ""))
        .await
        .unwrap()
        .into_inner()
        .seat_token;
    let v = view(&mut matches, &live, 0, &token).await;
    acted(
        &mut matches,
        act(&live, 0, v.legal_actions[0].id, None),
        &token,
    )
    .await
    .unwrap();

    // Filters and pages.
    let pokeros = list_all(
        &mut matches,
        pb::ListMatchesRequest {
            game: "pokeros".into(),
            page_size: 2,
            ..Default::default()
        },
    )
    .await;
    let ids: Vec<&str> = pokeros.iter().map(|m| m.match_id.as_str()).collect();
    let mut expected: Vec<&str> = finished.iter().map(String::as_str).collect();
    let mut sorted = ids.clone();
    sorted.sort();
    expected.sort();
    assert_eq!(sorted, expected, "every Pokeros match, once");
    assert!(
        pokeros
            .iter()
            .all(|m| m.status == pb::MatchStatus::Finished as i32
                && m.returns.len() == 2
                && m.game.starts_with("pokeros(")
                && m.game.contains("board_size=5"))
    );
    let live_only = list_all(
        &mut matches,
        pb::ListMatchesRequest {
            status: pb::MatchStatus::Live as i32,
            page_size: 10,
            ..Default::default()
        },
    )
    .await;
    assert_eq!(live_only.len(), 1);
    assert_eq!(live_only[0].match_id, live);
    assert_eq!(live_only[0].seats, ["human", "random"]);
    let future = list_all(
        &mut matches,
        pb::ListMatchesRequest {
            created_after_ms: Some(live_only[0].created_ms + 60_000),
            page_size: 10,
            ..Default::default()
        },
    )
    .await;
    assert!(future.is_empty());
    let bad = matches
        .list_matches(pb::ListMatchesRequest {
            page_token: "nonsense".into(),
            ..Default::default()
        })
        .await
        .unwrap_err();
    assert_eq!(bad.code(), Code::InvalidArgument);

    // A finished match: every entry revealed, chance included, and the view of everyone
    // after each step (the first step's whole, the others' as patches): every card a seat
    // held face up, ending at the spectator's view with the hands turned over; its seed shown
    // now that it is over.
    let replay = matches
        .get_replay(pb::GetReplayRequest {
            match_id: finished[0].clone(),
            ..Default::default()
        })
        .await
        .unwrap()
        .into_inner();
    assert!(replay.revealed);
    assert_eq!(replay.next_version, None, "one page holds the whole match");
    let summary = replay.r#match.clone().unwrap();
    assert!(summary.chosen_seed);
    let seeds: Vec<u64> = {
        let mut listed = list_all(
            &mut matches,
            pb::ListMatchesRequest {
                status: pb::MatchStatus::Finished as i32,
                game: "pokeros".into(),
                page_size: 10,
                ..Default::default()
            },
        )
        .await;
        listed.sort_by_key(|m| m.seed);
        listed.iter().map(|m| m.seed).collect()
    };
    assert_eq!(
        seeds,
        [0, 1, 2, 3, 4],
        "the seeds of finished matches are shown"
    );
    assert_eq!(replay.steps.len() as u64, summary.version + 1);
    assert!(
        replay.steps[0]
            .entries
            .iter()
            .all(|e| e.player == -1 && !e.text.is_empty())
    );
    assert!(!replay.steps[0].entries.is_empty(), "the deal is revealed");
    for (i, step) in replay.steps.iter().enumerate().skip(1) {
        assert_eq!(step.version, i as u64);
        assert_eq!(step.entries[0].player, step.actor);
    }
    let end = spectate(&mut matches, &finished[0])
        .await
        .unwrap()
        .into_inner();
    let views = page_views(&replay);
    let mut held = 0;
    for view in &views {
        assert_eq!(view["everyone"], true, "{view}");
        for seat in view["seats"].as_array().unwrap() {
            let cards = seat["cards"].as_array().unwrap();
            assert!(
                cards.iter().all(|c| c.is_string()),
                "a card face down: {view}"
            );
            held += cards.len();
        }
    }
    assert!(held > 0, "the seats held cards");
    let mut last = views.last().unwrap().clone();
    let mut spectator = json(&end.view_json);
    assert!(spectator.get("everyone").is_none());
    last.as_object_mut().unwrap().remove("everyone");
    for view in [&mut last, &mut spectator] {
        for seat in view["seats"].as_array_mut().unwrap() {
            seat.as_object_mut().unwrap().remove("cards");
        }
    }
    assert_eq!(last, spectator);
    // Page by page, two steps at a time: the same steps, each page opening with its view.
    let mut from = 0;
    let mut paged = Vec::new();
    loop {
        let page = matches
            .get_replay(pb::GetReplayRequest {
                match_id: finished[0].clone(),
                from_version: from,
                page_size: 2,
            })
            .await
            .unwrap()
            .into_inner();
        assert!(page.steps.len() <= 2);
        assert_eq!(page.steps[0].version, from);
        paged.extend(page_views(&page));
        match page.next_version {
            Some(next) => from = next,
            None => break,
        }
    }
    assert_eq!(paged, views);

    // A live match: what a spectator may see only, and no seed.
    let replay = matches
        .get_replay(pb::GetReplayRequest {
            match_id: live.clone(),
            ..Default::default()
        })
        .await
        .unwrap()
        .into_inner();
    assert!(!replay.revealed);
    assert_eq!(replay.r#match.as_ref().unwrap().seed, 0);
    assert!(replay.steps.iter().all(|s| s.entries.is_empty()));
    assert_eq!(replay.steps.last().unwrap().actor, -2, "a joint action");
    let now = spectate(&mut matches, &live).await.unwrap().into_inner();
    assert_eq!(page_views(&replay).last().unwrap(), &json(&now.view_json));
    let missing = matches
        .get_replay(pb::GetReplayRequest {
            match_id: "nope".into(),
            ..Default::default()
        })
        .await
        .unwrap_err();
    assert_eq!(missing.code(), Code::NotFound);
    server.shutdown().await;
}

#[tokio::test]
async fn matches_are_listed_and_replayed_in_memory() {
    lists_and_replays("memory").await;
}

#[tokio::test]
async fn matches_are_listed_and_replayed_from_sqlite() {
    let dir = temp_dir("list");
    lists_and_replays(&format!("sqlite://{}/m.sqlite3", dir.display())).await;
    std::fs::remove_dir_all(dir).unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn idle_expiry_is_stored_and_continues_from_stored_times_after_a_restart() {
    let dir = temp_dir("expiry");
    let database = format!("sqlite://{}/m.sqlite3", dir.display());
    let short = || Config {
        idle_expiry_secs: 1,
        finished_expiry_secs: 1,
        ..config(&database)
    };
    let long = || Config {
        idle_expiry_secs: 3600,
        ..config(&database)
    };
    let statuses = |server: &TestServer| {
        let mut matches = server.matches();
        async move {
            list_all(
                &mut matches,
                pb::ListMatchesRequest {
                    page_size: 10,
                    ..Default::default()
                },
            )
            .await
            .into_iter()
            .map(|m| (m.match_id, m.status))
            .collect::<std::collections::HashMap<_, _>>()
        }
    };
    // Expired while the server runs: stored as expired, not resumed.
    let server = TestServer::start(short()).await;
    let mut matches = server.matches();
    let first = matches
        .create_match(create(
            "pokeros",
            &[("board_size", "5")],
            &["human", "random"],
            1,
        ))
        .await
        .unwrap()
        .into_inner()
        .match_id;
    tokio::time::sleep(std::time::Duration::from_millis(1800)).await;
    assert_eq!(
        statuses(&server).await[&first],
        pb::MatchStatus::Expired as i32
    );
    server.shutdown().await;

    // Created, then the server stops for longer than the idle expiry: restarted with a longer
    // expiry it is there; restarted with the short one, its clock has run out (it counts from
    // the stored time of its last public change: a read leaves no trace in the store).
    let server = TestServer::start(long()).await;
    let mut matches = server.matches();
    let second = matches
        .create_match(create(
            "pokeros",
            &[("board_size", "5")],
            &["human", "random"],
            2,
        ))
        .await
        .unwrap()
        .into_inner()
        .match_id;
    server.shutdown().await;
    tokio::time::sleep(std::time::Duration::from_millis(1200)).await;
    let server = TestServer::start(long()).await;
    let mut matches = server.matches();
    spectate(&mut matches, &second).await.unwrap();
    server.shutdown().await;
    tokio::time::sleep(std::time::Duration::from_millis(1200)).await;
    let server = TestServer::start(short()).await;
    tokio::time::sleep(std::time::Duration::from_millis(600)).await;
    let mut matches = server.matches();
    let gone = spectate(&mut matches, &second).await.unwrap_err();
    assert_eq!(gone.code(), Code::NotFound);
    let listed = statuses(&server).await;
    assert_eq!(listed[&second], pb::MatchStatus::Expired as i32);
    assert_eq!(listed[&first], pb::MatchStatus::Expired as i32);
    server.shutdown().await;
    std::fs::remove_dir_all(dir).unwrap();
}

#[cfg(feature = "postgres")]
#[tokio::test]
async fn an_unreachable_postgresql_is_named_with_the_reason_at_start() {
    // Nothing listens on port 1: the error says why at once, not after the pool's timeout.
    let error = checkraise_grpc::store::Store::open("postgres://nobody:secret@127.0.0.1:1/db")
        .await
        .err()
        .expect("nothing to connect to");
    // The database's own error travels as the source, beside the one line.
    assert!(std::error::Error::source(&error).is_some(), "{error:?}");
    let error = error.to_string();
    assert!(
        error.contains("cannot open the database postgres://nobody:***@127.0.0.1:1/db"),
        "{error}"
    );
    assert!(error.to_lowercase().contains("refused"), "{error}");
    assert!(!error.contains("secret"), "{error}");
}

fn json(text: &str) -> serde_json::Value {
    serde_json::from_str(text).unwrap()
}

/// Every step's public view in a replay page: the first step's whole, each later one its
/// predecessor with the step's JSON Patch applied.
fn page_views(page: &pb::Replay) -> Vec<serde_json::Value> {
    let mut views: Vec<serde_json::Value> = Vec::new();
    for (i, step) in page.steps.iter().enumerate() {
        if i == 0 {
            assert!(step.spectator_view_patch.is_empty());
            views.push(json(&step.spectator_view_json));
        } else {
            assert!(step.spectator_view_json.is_empty());
            let mut view = views[i - 1].clone();
            apply_patch(&mut view, &json(&step.spectator_view_patch));
            views.push(view);
        }
    }
    views
}

/// A JSON Patch (RFC 6902) applied by the `json-patch` crate.
fn apply_patch(document: &mut serde_json::Value, patch: &serde_json::Value) {
    let patch: json_patch::Patch = serde_json::from_value(patch.clone()).unwrap();
    json_patch::patch(document, &patch).unwrap();
}
