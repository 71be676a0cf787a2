//! Durable matches' figures for docs/benchmarks.md, in one run:
//!
//! 1. `Act` round trips (Pokeros, seat 0 against the random bot, the whole view back) on three
//!    in-process servers, one per `--database`: `memory`, a SQLite file, and PostgreSQL when
//!    `CHECKRAISE_BENCH_PG` gives a URL; matches played in turn on each, so that load on the
//!    machine falls on all three alike.
//! 2. Recovery: `MATCHES` stored matches (each a few moves into a Pokeros game against the
//!    random bot, one seat joined), then the time a new server takes to resume them all.
//!
//! `cargo run --release -p checkraise-grpc --example store_bench [-- ROUNDS MATCHES]`

use std::time::{Duration, Instant};

use checkraise_grpc::auth::random_hex;
use checkraise_grpc::config::Config;
use checkraise_grpc::live_match::{ActionChoice, LiveMatch};
use checkraise_grpc::matches::{MatchStore, build_seats};
use checkraise_grpc::pb;
use checkraise_grpc::pb::matches_client::MatchesClient;
use checkraise_grpc::store::Store;
use tokio::net::TcpListener;
use tonic::Request;
use tonic::transport::Channel;

fn arg(n: usize, default: usize) -> usize {
    std::env::args()
        .nth(n)
        .and_then(|a| a.parse().ok())
        .unwrap_or(default)
}

/// A server on `database`, in this process, and a client of it.
async fn server(database: &str) -> Result<MatchesClient<Channel>, Box<dyn std::error::Error>> {
    let listener = TcpListener::bind("127.0.0.1:0").await?;
    let address = listener.local_addr()?;
    let config = Config {
        database: database.to_string(),
        ..Config::in_memory()
    };
    tokio::spawn(checkraise_grpc::server::serve(
        config,
        listener,
        std::future::pending(),
    ));
    let channel = Channel::from_shared(format!("http://{address}"))?;
    for _ in 0..200 {
        if let Ok(channel) = channel.connect().await {
            return Ok(MatchesClient::new(channel));
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    Err(format!("the server on {database} did not start").into())
}

fn with_token<T>(token: &str, message: T) -> Request<T> {
    let mut request = Request::new(message);
    request
        .metadata_mut()
        .insert("x-seat-token", token.parse().expect("tokens are hex"));
    request
}

/// Plays one Pokeros match as seat 0 against the random bot; the Act latencies.
async fn play(
    matches: &mut MatchesClient<Channel>,
    seed: u64,
    latencies: &mut Vec<Duration>,
) -> Result<(), Box<dyn std::error::Error>> {
    let id = matches
        .create_match(pb::CreateMatchRequest {
            game: "pokeros".into(),
            seed: Some(seed),
            seats: vec!["human".into(), "random".into()],
            ..Default::default()
        })
        .await?
        .into_inner()
        .match_id;
    let token = matches
        .join_seat(pb::JoinSeatRequest {
            match_id: id.clone(),
            seat: Some(0),
            ..Default::default()
        })
        .await?
        .into_inner()
        .seat_token;
    let mut view = matches
        .get_view(with_token(
            &token,
            pb::GetViewRequest {
                match_id: id.clone(),
                seat: 0,
                view_options: None,
            },
        ))
        .await?
        .into_inner();
    while !view.is_terminal {
        let started = Instant::now();
        view = matches
            .act(with_token(
                &token,
                pb::ActRequest {
                    match_id: id.clone(),
                    seat: 0,
                    action: Some(pb::act_request::Action::ActionId(view.legal_actions[0].id)),
                    expected_version: Some(view.version),
                    ..Default::default()
                },
            ))
            .await?
            .into_inner();
        latencies.push(started.elapsed());
    }
    Ok(())
}

fn percentiles(latencies: &mut [Duration]) -> String {
    latencies.sort();
    let pct = |p: f64| latencies[((latencies.len() - 1) as f64 * p) as usize];
    format!(
        "n={} p50={:?} p90={:?} p99={:?}",
        latencies.len(),
        pct(0.5),
        pct(0.9),
        pct(0.99)
    )
}

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let (rounds, stored) = (arg(1, 20), arg(2, 10_000));
    let dir = std::env::temp_dir().join(format!("checkraise-bench-{}", random_hex(4)));
    let mut databases = vec![
        "memory".to_string(),
        format!("sqlite://{}/act.sqlite3", dir.display()),
    ];
    if let Ok(url) = std::env::var("CHECKRAISE_BENCH_PG") {
        databases.push(url);
    }
    let mut clients = Vec::new();
    for database in &databases {
        clients.push(server(database).await?);
    }
    let mut latencies = vec![Vec::new(); databases.len()];
    for round in 0..rounds as u64 {
        for (client, latencies) in clients.iter_mut().zip(&mut latencies) {
            play(client, round, latencies).await?;
        }
    }
    for (database, latencies) in databases.iter().zip(&mut latencies) {
        let name = database.split("://").next().unwrap_or(database);
        println!("Act on {name}: {}", percentiles(latencies));
    }

    // Recovery: `stored` matches written through the store, then resumed by a new one.
    for database in databases.iter().skip(1) {
        let url = if database.starts_with("sqlite") {
            format!("sqlite://{}/recovery.sqlite3", dir.display())
        } else {
            database.clone()
        };
        let store = Store::open(&url).await?;
        let writer = MatchStore::with_store(usize::MAX, Some(store.clone()), Duration::ZERO);
        let game = checkraise_core::make_game::<&str, &str>("pokeros", [])?;
        let started = Instant::now();
        for seed in 0..stored as u64 {
            let seats = build_seats(game.as_ref(), vec!["human".into(), "random".into()], None)?;
            let mut live = LiveMatch::new(random_hex(16), game.clone(), seed, seats)?;
            live.join(Some(0), random_hex(32))?;
            for _ in 0..5 {
                let action = live.view(Some(0)).legal_actions[0].id;
                live.act(0, ActionChoice::Id(action))?;
            }
            writer.store_new(live, writer.reserve_new(None)?).await?;
        }
        println!(
            "stored {stored} matches on {} in {:?}",
            url.split("://").next().unwrap_or(&url),
            started.elapsed()
        );
        let reader = MatchStore::with_store(usize::MAX, Some(store.clone()), Duration::ZERO);
        let started = Instant::now();
        let resumed = reader.resume_all().await?;
        println!(
            "resumed {resumed} matches from {} in {:?}",
            url.split("://").next().unwrap_or(&url),
            started.elapsed()
        );
        store.close().await;
    }
    let _ = std::fs::remove_dir_all(dir);
    Ok(())
}
