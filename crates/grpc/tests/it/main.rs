//! The service's integration tests, in one test binary: each module was its own binary before,
//! and every one of them compiled and linked the whole gRPC stack again (the crash test, which
//! starts servers and PostgreSQL as processes, stays its own binary: `tests/crash.rs`).
//!
//! Run one module's tests with a filter: `cargo test -p checkraise-grpc --test it storage::`.

mod bots;
mod common;
mod dm_env;
mod envs;
mod envs_opponents;
mod every_game;
// The export tests read the Parquet files back (the `parquet` feature, on in the test command).
#[cfg(feature = "parquet")]
mod export;
mod malformed;
mod matches;
mod shares;
mod simultaneous;
mod storage;
mod web;
