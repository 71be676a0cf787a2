//! End to end from a tonic client against the server started in-process on a free port.

use std::collections::HashMap;

use crate::common::{TestServer, create, join, with_token};
use checkraise_grpc::config::Config;
use checkraise_grpc::pb;
use checkraise_grpc::pb::catalog_client::CatalogClient;
use tonic::Code;

#[tokio::test]
async fn catalog_lists_every_registered_game() {
    let server = TestServer::start(Config::in_memory()).await;
    let mut catalog = CatalogClient::new(server.channel.clone());
    let games = catalog
        .list_games(pb::ListGamesRequest {})
        .await
        .unwrap()
        .into_inner()
        .games;
    let names: Vec<&str> = games.iter().map(|g| g.name.as_str()).collect();
    let registered: Vec<&str> = checkraise_core::registry::game_names();
    assert_eq!(names, registered);
    for game in &games {
        let sizes = game.default_sizes.as_ref().unwrap();
        assert!(sizes.num_distinct_actions > 0, "{}", game.name);
        assert!(game.min_players <= game.max_players, "{}", game.name);
    }
    let missing = catalog
        .get_game(pb::GetGameRequest {
            name: "nope".into(),
            parameters: HashMap::new(),
        })
        .await
        .unwrap_err();
    assert_eq!(missing.code(), Code::NotFound);
    server.shutdown().await;
}

#[tokio::test]
async fn a_human_plays_pokeros_against_the_heuristic_bot() {
    let server = TestServer::start(Config::in_memory()).await;
    let mut matches = server.matches();
    let created = matches
        .create_match(create("pokeros", &[], &["human", "heuristic"], 5))
        .await
        .unwrap()
        .into_inner();
    let id = created.match_id.clone();
    let joined = matches
        .join_seat(pb::JoinSeatRequest {
            match_id: id.clone(),
            seat: Some(0),
            ..Default::default()
        })
        .await
        .unwrap()
        .into_inner();
    let token = joined.seat_token;

    let mut view = matches
        .get_view(with_token(
            pb::GetViewRequest {
                match_id: id.clone(),
                seat: 0,
                view_options: None,
            },
            &token,
        ))
        .await
        .unwrap()
        .into_inner();
    let mut moves = 0;
    while !view.is_terminal {
        assert!(view.may_act);
        let json: serde_json::Value = serde_json::from_str(&view.view_json).unwrap();
        assert!(
            json["seats"][1]["cards"]
                .as_array()
                .unwrap()
                .iter()
                .all(|c| c.is_null()),
            "seat 0 sees seat 1's hand"
        );
        let first = view.legal_actions[0].clone();
        view = matches
            .act(with_token(
                pb::ActRequest {
                    match_id: id.clone(),
                    seat: 0,
                    action: Some(pb::act_request::Action::ActionText(first.text)),
                    view_options: None,
                    ..Default::default()
                },
                &token,
            ))
            .await
            .unwrap()
            .into_inner();
        moves += 1;
    }
    assert_eq!(moves, 26);
    assert_eq!(view.returns.len(), 2);
    assert_eq!(view.returns.iter().sum::<f64>(), 0.0);

    let finished = matches
        .act(with_token(
            pb::ActRequest {
                match_id: id.clone(),
                seat: 0,
                action: Some(pb::act_request::Action::ActionId(0)),
                view_options: None,
                ..Default::default()
            },
            &token,
        ))
        .await
        .unwrap_err();
    assert_eq!(finished.code(), Code::FailedPrecondition);
    server.shutdown().await;
}

#[tokio::test]
async fn mistakes_get_precise_status_codes() {
    let server = TestServer::start(Config::in_memory()).await;
    let mut matches = server.matches();
    let bad_game = matches
        .create_match(create("nope", &[], &[], 1))
        .await
        .unwrap_err();
    assert_eq!(bad_game.code(), Code::InvalidArgument);
    assert!(bad_game.message().contains("unknown game 'nope'"));

    let id = matches
        .create_match(create("pokeros", &[], &["human", "human"], 1))
        .await
        .unwrap()
        .into_inner()
        .match_id;
    let token = join(&mut matches, &id, 1).await;
    let view_of_0 = pb::GetViewRequest {
        match_id: id.clone(),
        seat: 0,
        view_options: None,
    };
    let denied = matches
        .get_view(with_token(view_of_0.clone(), &token))
        .await
        .unwrap_err();
    assert_eq!(denied.code(), Code::PermissionDenied);
    let missing = matches.get_view(view_of_0).await.unwrap_err();
    assert_eq!(missing.code(), Code::PermissionDenied);

    let out_of_turn = matches
        .act(with_token(
            pb::ActRequest {
                match_id: id.clone(),
                seat: 1,
                action: Some(pb::act_request::Action::ActionId(0)),
                view_options: None,
                ..Default::default()
            },
            &token,
        ))
        .await
        .unwrap_err();
    assert_eq!(out_of_turn.code(), Code::FailedPrecondition);

    let unknown = matches
        .get_spectator_view(pb::GetSpectatorViewRequest {
            match_id: "nope".into(),
        })
        .await
        .unwrap_err();
    assert_eq!(unknown.code(), Code::NotFound);
    server.shutdown().await;
}

#[tokio::test]
async fn match_limit_is_resource_exhausted_and_idle_matches_expire() {
    let config = Config {
        max_matches: 2,
        idle_expiry_secs: 1,
        ..Config::in_memory()
    };
    let server = TestServer::start(config).await;
    let mut matches = server.matches();
    let first = matches
        .create_match(create("pokeros", &[], &[], 1))
        .await
        .unwrap()
        .into_inner()
        .match_id;
    matches
        .create_match(create("pokeros", &[], &[], 2))
        .await
        .unwrap();
    let full = matches
        .create_match(create("pokeros", &[], &[], 3))
        .await
        .unwrap_err();
    assert_eq!(full.code(), Code::ResourceExhausted);

    tokio::time::sleep(std::time::Duration::from_millis(1600)).await;
    let gone = matches
        .get_spectator_view(pb::GetSpectatorViewRequest { match_id: first })
        .await
        .unwrap_err();
    assert_eq!(gone.code(), Code::NotFound);
    matches
        .create_match(create("pokeros", &[], &[], 4))
        .await
        .unwrap();
    server.shutdown().await;
}

#[tokio::test]
async fn finished_matches_expire_sooner_than_live_ones() {
    let config = Config {
        idle_expiry_secs: 60,
        finished_expiry_secs: 1,
        ..Config::in_memory()
    };
    let server = TestServer::start(config).await;
    let mut matches = server.matches();
    // Bots in every seat play the whole game at creation.
    let finished = matches
        .create_match(create(
            "detective_poker",
            &[],
            &["random", "random", "random"],
            1,
        ))
        .await
        .unwrap()
        .into_inner()
        .match_id;
    let live = matches
        .create_match(create("pokeros", &[], &["human", "random"], 2))
        .await
        .unwrap()
        .into_inner()
        .match_id;
    let over = matches
        .get_spectator_view(pb::GetSpectatorViewRequest {
            match_id: finished.clone(),
        })
        .await
        .unwrap()
        .into_inner();
    assert!(over.is_terminal);
    tokio::time::sleep(std::time::Duration::from_millis(1600)).await;
    let gone = matches
        .get_spectator_view(pb::GetSpectatorViewRequest { match_id: finished })
        .await
        .unwrap_err();
    assert_eq!(gone.code(), Code::NotFound);
    matches
        .get_spectator_view(pb::GetSpectatorViewRequest { match_id: live })
        .await
        .unwrap();
    server.shutdown().await;
}

#[tokio::test]
async fn health_reports_serving() {
    let server = TestServer::start(Config::in_memory()).await;
    let mut health = tonic_health::pb::health_client::HealthClient::new(server.channel.clone());
    for service in ["", "checkraise.v1.Catalog", "checkraise.v1.Matches"] {
        let reply = health
            .check(tonic_health::pb::HealthCheckRequest {
                service: service.to_string(),
            })
            .await
            .unwrap()
            .into_inner();
        assert_eq!(
            reply.status,
            tonic_health::pb::health_check_response::ServingStatus::Serving as i32
        );
    }
    server.shutdown().await;
}

#[tokio::test]
async fn reflection_v1_lists_the_services_for_grpcurl() {
    use tonic_reflection::pb::v1::ServerReflectionRequest;
    use tonic_reflection::pb::v1::server_reflection_client::ServerReflectionClient;
    use tonic_reflection::pb::v1::server_reflection_request::MessageRequest;
    use tonic_reflection::pb::v1::server_reflection_response::MessageResponse;

    let server = TestServer::start(Config::in_memory()).await;
    let mut reflection = ServerReflectionClient::new(server.channel.clone());
    let requests = tokio_stream::iter([
        ServerReflectionRequest {
            host: String::new(),
            message_request: Some(MessageRequest::ListServices(String::new())),
        },
        ServerReflectionRequest {
            host: String::new(),
            message_request: Some(MessageRequest::FileContainingSymbol(
                "checkraise.v1.Envs".into(),
            )),
        },
    ]);
    let mut replies = reflection
        .server_reflection_info(requests)
        .await
        .unwrap()
        .into_inner();
    let Some(MessageResponse::ListServicesResponse(list)) =
        replies.message().await.unwrap().unwrap().message_response
    else {
        panic!("expected a service list");
    };
    let names: Vec<String> = list.service.into_iter().map(|s| s.name).collect();
    for expected in [
        "checkraise.v1.Catalog",
        "checkraise.v1.Matches",
        "checkraise.v1.Envs",
        "grpc.health.v1.Health",
    ] {
        assert!(
            names.iter().any(|n| n == expected),
            "{expected} in {names:?}"
        );
    }
    let Some(MessageResponse::FileDescriptorResponse(files)) =
        replies.message().await.unwrap().unwrap().message_response
    else {
        panic!("expected the file holding checkraise.v1.Envs");
    };
    assert!(!files.file_descriptor_proto.is_empty());
    server.shutdown().await;
}

/// A seat's `ViewOptions` leave parts of its views out, and only those: the same match played
/// with whole views and with lean ones (same seed, random bot) gives the same views otherwise.
#[tokio::test]
async fn view_options_leave_out_only_the_parts_asked() {
    let server = TestServer::start(Config::in_memory()).await;
    let mut matches = server.matches();
    let lean = pb::ViewOptions {
        omit_view_json: true,
        omit_observation: true,
        omit_observation_text: true,
        omit_action_texts: true,
        ..Default::default()
    };
    let mut seats = Vec::new();
    for _ in 0..2 {
        let id = matches
            .create_match(create(
                "pokeros",
                &[("board_size", "5")],
                &["human", "random"],
                9,
            ))
            .await
            .unwrap()
            .into_inner()
            .match_id;
        let token = join(&mut matches, &id, 0).await;
        seats.push((id, token));
    }
    // What the lean view should be: the whole one with the parts emptied.
    let emptied = |mut view: pb::SeatView, lean_id: &str| {
        view.match_id = lean_id.to_string();
        view.view_json.clear();
        view.observation = None;
        view.observation_text.clear();
        for action in &mut view.legal_actions {
            action.text.clear();
            action.action_json.clear();
        }
        view
    };
    let get = |seat: usize, view_options: Option<pb::ViewOptions>| {
        let (id, token) = seats[seat].clone();
        let mut matches = matches.clone();
        async move {
            let request = pb::GetViewRequest {
                match_id: id,
                seat: 0,
                view_options,
            };
            matches
                .get_view(with_token(request, &token))
                .await
                .unwrap()
                .into_inner()
        }
    };
    let mut whole = get(0, None).await;
    assert!(!whole.view_json.is_empty() && whole.observation.is_some());
    assert!(!whole.observation_text.is_empty() && !whole.legal_actions[0].text.is_empty());
    assert!(whole.legal_actions[0].action_json.starts_with("{\"card\":"));
    assert_eq!(
        get(1, Some(lean)).await,
        emptied(whole.clone(), &seats[1].0)
    );
    assert_eq!(
        get(1, Some(pb::ViewOptions::default())).await.view_json,
        whole.view_json
    );
    while !whole.is_terminal {
        let action = whole.legal_actions[0].id;
        let mut views = Vec::new();
        for (seat, view_options) in [(0, None), (1, Some(lean))] {
            let (id, token) = &seats[seat];
            let request = pb::ActRequest {
                match_id: id.clone(),
                seat: 0,
                action: Some(pb::act_request::Action::ActionId(action)),
                view_options,
                ..Default::default()
            };
            views.push(
                matches
                    .act(with_token(request, token))
                    .await
                    .unwrap()
                    .into_inner(),
            );
        }
        let part = views.pop().unwrap();
        whole = views.pop().unwrap();
        assert_eq!(part, emptied(whole.clone(), &seats[1].0));
    }
    assert!(!whole.returns.is_empty());
    server.shutdown().await;
}

/// A spectator that does not read is cut off once `--watch-buffer-kib` of events wait for it
/// (its connection's flow-control window is tiny, so the events pile up on the server), while
/// one that reads follows the match to its end.
#[tokio::test]
async fn a_watcher_that_does_not_read_is_cut_off_past_its_buffer() {
    use tokio_stream::StreamExt;
    let config = Config {
        watch_buffer_kib: 16,
        ..Config::in_memory()
    };
    let server = TestServer::start(config).await;
    let mut matches = server.matches();
    let id = matches
        .create_match(create("pokeros", &[], &["human", "random"], 7))
        .await
        .unwrap()
        .into_inner()
        .match_id;
    let token = join(&mut matches, &id, 0).await;
    // A connection whose windows the client only opens as it reads.
    let slow_channel =
        tonic::transport::Endpoint::from_shared(format!("http://{}", server.address))
            .unwrap()
            .initial_stream_window_size(Some(1024))
            .initial_connection_window_size(Some(1024))
            .connect()
            .await
            .unwrap();
    let mut slow = pb::matches_client::MatchesClient::new(slow_channel);
    let watch = pb::WatchSpectatorRequest {
        match_id: id.clone(),
        presence: false,
    };
    let mut slow_events = slow
        .watch_spectator(watch.clone())
        .await
        .unwrap()
        .into_inner();
    let mut reader = matches.watch_spectator(watch).await.unwrap().into_inner();
    let following = tokio::spawn(async move {
        let mut events = 0;
        while let Some(event) = reader.next().await {
            event.expect("a reading watcher is never cut off");
            events += 1;
        }
        events
    });
    // Play seat 0's first legal action until the game ends.
    let mut acts = 0;
    loop {
        let view = matches
            .get_view(with_token(
                pb::GetViewRequest {
                    match_id: id.clone(),
                    seat: 0,
                    ..Default::default()
                },
                &token,
            ))
            .await
            .unwrap()
            .into_inner();
        if view.is_terminal {
            break;
        }
        let action = view.legal_actions[0].id;
        matches
            .act(with_token(
                pb::ActRequest {
                    match_id: id.clone(),
                    seat: 0,
                    action: Some(pb::act_request::Action::ActionId(action)),
                    ..Default::default()
                },
                &token,
            ))
            .await
            .unwrap();
        acts += 1;
    }
    assert!(acts > 10, "{acts}");
    assert!(
        following.await.unwrap() > acts,
        "the reader saw every change"
    );
    // The slow watcher now reads: some events, then RESOURCE_EXHAUSTED naming the limit.
    let mut read = 0;
    let cut = loop {
        match slow_events.next().await {
            Some(Ok(_)) => read += 1,
            Some(Err(status)) => break status,
            None => panic!("the slow watcher was never cut off ({read} events)"),
        }
    };
    assert_eq!(cut.code(), Code::ResourceExhausted, "{cut:?}");
    assert!(cut.message().contains("16 KiB"), "{}", cut.message());
    assert!(read < acts, "{read} events of {acts} acts");
    server.shutdown().await;
}

/// Four-player Pokeros on the largest board: each seat's observation alone is about 70 KB.
fn big_pokeros(seed: u64) -> pb::CreateMatchRequest {
    create(
        "pokeros",
        &[("players", "4"), ("board_size", "31")],
        &["human", "random", "random", "random"],
        seed,
    )
}

#[tokio::test]
async fn a_match_whose_views_cannot_be_sent_is_refused_at_creation() {
    let config = Config {
        max_message_size: 65_536,
        ..Config::in_memory()
    };
    let server = TestServer::start(config).await;
    let mut matches = server.matches();
    let refused = matches.create_match(big_pokeros(1)).await.unwrap_err();
    assert_eq!(refused.code(), Code::InvalidArgument, "{refused:?}");
    assert!(
        refused.message().contains("--max-message-size"),
        "{}",
        refused.message()
    );
    // The same parameters fit a server that sends larger messages.
    let roomy = TestServer::start(Config {
        max_message_size: 1 << 20,
        ..Config::in_memory()
    })
    .await;
    let mut roomy_matches = roomy.matches();
    let id = roomy_matches
        .create_match(big_pokeros(1))
        .await
        .unwrap()
        .into_inner()
        .match_id;
    let view = roomy_matches
        .get_spectator_view(pb::GetSpectatorViewRequest { match_id: id })
        .await
        .unwrap()
        .into_inner();
    assert!(view.omitted_parts.is_empty());
    roomy.shutdown().await;
    server.shutdown().await;
}

#[tokio::test]
async fn streams_are_capped_over_all_connections() {
    let server = TestServer::start(Config {
        max_streams: 2,
        // The server-wide cap, not an address's share: every call here comes from 127.0.0.1.
        max_streams_per_peer: Some(2),
        ..Config::in_memory()
    })
    .await;
    let mut matches = server.matches();
    let id = matches
        .create_match(create("pokeros", &[], &["human", "random"], 1))
        .await
        .unwrap()
        .into_inner()
        .match_id;
    let watch = |matches: &mut pb::matches_client::MatchesClient<_>| {
        let request = pb::WatchSpectatorRequest {
            match_id: id.clone(),
            presence: false,
        };
        let mut matches = matches.clone();
        async move { matches.watch_spectator(request).await }
    };
    let first = watch(&mut matches).await.unwrap();
    // A second connection counts toward the same cap.
    let mut other = pb::matches_client::MatchesClient::new(server.connect().await);
    let second = watch(&mut other).await.unwrap();
    let third = watch(&mut other).await.unwrap_err();
    assert_eq!(third.code(), Code::ResourceExhausted, "{third:?}");
    assert!(
        third.message().contains("--max-streams"),
        "{}",
        third.message()
    );
    drop(first);
    // The server frees the place once it sees the stream gone.
    let mut reopened = None;
    for _ in 0..100 {
        if let Ok(stream) = watch(&mut other).await {
            reopened = Some(stream);
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    }
    assert!(reopened.is_some(), "a freed place is never given back");
    drop(second);
    server.shutdown().await;
}

#[tokio::test]
async fn one_client_address_holds_at_most_its_share_of_matches() {
    let server = TestServer::start(Config {
        max_matches: 10,
        max_matches_per_peer: 2,
        ..Config::in_memory()
    })
    .await;
    let mut matches = server.matches();
    for seed in 0..2 {
        matches
            .create_match(create("pokeros", &[], &[], seed))
            .await
            .unwrap();
    }
    let over = matches
        .create_match(create("pokeros", &[], &[], 9))
        .await
        .unwrap_err();
    assert_eq!(over.code(), Code::ResourceExhausted, "{over:?}");
    assert!(
        over.message().contains("--max-matches-per-peer"),
        "{}",
        over.message()
    );
    server.shutdown().await;
}

/// A human seat is `connected` while a WatchSeat stream for it is open, and every watcher is
/// told when that changes (an event with actor -1 at the same version).
#[tokio::test]
async fn a_seats_presence_follows_its_watch_stream() {
    use tokio_stream::StreamExt;
    let server = TestServer::start(Config::in_memory()).await;
    let mut matches = server.matches();
    let id = matches
        .create_match(create("pokeros", &[], &["human", "human"], 3))
        .await
        .unwrap()
        .into_inner()
        .match_id;
    let tokens = [
        join(&mut matches, &id, 0).await,
        join(&mut matches, &id, 1).await,
    ];
    let watch = |seat: u32| {
        with_token(
            pb::WatchSeatRequest {
                match_id: id.clone(),
                seat,
                presence: true,
                ..Default::default()
            },
            &tokens[seat as usize],
        )
    };
    let connected = |event: &pb::MatchEvent| -> Vec<bool> {
        let view = event.view.as_ref().unwrap();
        view.seats.iter().map(|s| s.connected).collect()
    };
    let mut first = matches.watch_seat(watch(0)).await.unwrap().into_inner();
    let opened = first.next().await.unwrap().unwrap();
    assert_eq!(opened.actor, -1);
    assert_eq!(connected(&opened), [true, false], "only seat 0 is followed");
    let version = opened.view.as_ref().unwrap().version;

    // The friend opens seat 1: seat 0's watcher is told, with no step.
    let mut second = server
        .matches()
        .watch_seat(watch(1))
        .await
        .unwrap()
        .into_inner();
    assert_eq!(
        connected(&second.next().await.unwrap().unwrap()),
        [true, true]
    );
    let joined = first.next().await.unwrap().unwrap();
    assert_eq!((joined.actor, connected(&joined)), (-1, vec![true, true]));
    assert_eq!(joined.view.as_ref().unwrap().version, version);
    assert!(joined.own_action.is_none());

    // The friend leaves: told again.
    drop(second);
    let left = tokio::time::timeout(std::time::Duration::from_secs(10), first.next())
        .await
        .expect("seat 0's watcher hears that seat 1 left")
        .unwrap()
        .unwrap();
    assert_eq!((left.actor, connected(&left)), (-1, vec![true, false]));
    let view = matches
        .get_spectator_view(pb::GetSpectatorViewRequest {
            match_id: id.clone(),
        })
        .await
        .unwrap()
        .into_inner();
    let statuses: Vec<bool> = view.seats.iter().map(|s| s.connected).collect();
    assert_eq!(statuses, [true, false]);
}
