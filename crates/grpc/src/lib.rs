//! checkraise-grpc: the tonic face of the checkraise engine.
//!
//! Three services over one registry of games: `Catalog` (games, facts, parameter schemas),
//! `Matches` (networked matches with secret seat tokens; chance and bots act on the server)
//! and `Envs` (batched envs for remote RL), plus the standard health and reflection services.
//! Everything about the games comes from `checkraise-core`; this crate only translates.

pub mod catalog;
pub mod config;
pub mod envs;
pub mod errors;
pub mod live_match;
pub mod matches;
pub mod server;
pub mod tensor;

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
