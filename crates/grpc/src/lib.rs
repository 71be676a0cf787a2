//! checkraise-grpc: the tonic face of the checkraise engine.
//!
//! Four services of our own over one registry of games: `Catalog` (games, facts, parameter
//! schemas), `Matches` (networked matches with secret seat tokens; chance and bots act on the
//! server), `Envs` (batched envs for remote RL) and `Ladder` (bots registered to play rated
//! duplicate sets); DeepMind's dm_env_rpc protocol (`dm_env_rpc.v1.Environment`, every game a
//! world); the standard health and reflection (v1 and v1alpha) services; a web page to play
//! and watch matches (gRPC-Web, assets embedded); and Prometheus metrics on their own address.
//! Everything about the games comes from `checkraise-core`; this crate only translates.
//!
//! The service modules (`catalog`, `matches`, `envs`, `ladder`, `dm_env`) speak the wire:
//! they read requests, call the layers below and build replies and statuses. Below them,
//! `live_match` is a match in play as a domain of its own (its seats, tokens, watchers, what
//! it stores, and its own values for views and events: `SeatView`, `MatchEvent`), returning
//! its own `MatchError`; the Matches service's `MatchStore` keeps every live match by id over
//! the durable store and returns its own `MatchStoreError`; `store` keeps matches and the
//! ladder in SQLite or PostgreSQL (`StoreError`); `sessions` holds what the server keeps open
//! for its clients, with per-address quotas and expiry; `auth` holds the secrets (tokens,
//! their hashes). Two edges translate, each in one place: `matches::wire` turns views and
//! events into messages fitted to the largest reply, and `errors` turns the domains' errors
//! into gRPC statuses.

pub mod auth;
pub mod catalog;
pub mod config;
pub mod connections;
pub mod dm_env;
pub mod envs;
pub mod errors;
pub mod export;
pub mod forward;
pub mod gate;
pub mod ladder;
pub mod live_match;
pub mod matches;
pub mod proxy_protocol;
pub mod replay;
pub mod server;
pub mod sessions;
pub mod store;
pub mod tensor;
pub mod web;

/// The generated `checkraise.v1` messages, servers and clients.
pub mod pb {
    #![allow(missing_docs, clippy::all, clippy::pedantic)]
    tonic::include_proto!("checkraise.v1");

    /// The encoded file descriptor set of the contract, served by reflection.
    pub const FILE_DESCRIPTOR_SET: &[u8] =
        include_bytes!(concat!(env!("OUT_DIR"), "/checkraise_descriptor.bin"));
}

/// The metadata key that carries a seat's secret token.
pub const SEAT_TOKEN_METADATA: &str = "x-seat-token";

/// The generated messages, server and client of DeepMind's dm_env_rpc protocol
/// (`dm_env_rpc.v1`, from the unmodified `proto/third_party`), with the `google.rpc.Status`
/// it carries errors in.
pub mod dm_env_pb {
    #![allow(missing_docs, clippy::all, clippy::pedantic)]

    /// `dm_env_rpc.v1`.
    pub mod dm_env_rpc {
        /// `dm_env_rpc.v1`.
        pub mod v1 {
            tonic::include_proto!("dm_env_rpc.v1");
        }
    }

    /// `google.rpc`.
    pub mod google {
        /// `google.rpc`.
        pub mod rpc {
            tonic::include_proto!("google.rpc");
        }
    }

    /// The encoded file descriptor set of `dm_env_rpc.v1` and its imports, served by
    /// reflection.
    pub const FILE_DESCRIPTOR_SET: &[u8] =
        include_bytes!(concat!(env!("OUT_DIR"), "/dm_env_rpc_descriptor.bin"));
}
