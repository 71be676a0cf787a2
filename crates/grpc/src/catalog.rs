//! The Catalog service: every registered game, its facts, parameter schema and sizes.

use std::collections::HashMap;
use std::sync::OnceLock;

use checkraise_core::bots::BOT_KINDS;
use checkraise_core::registry::{self, GameEntry, ParamKind};
use checkraise_core::vocabulary::fact_word;
use checkraise_core::{Game, make_game};
use tonic::{Request, Response, Status};

use crate::errors::status_from_game_error;
use crate::pb;

/// The Catalog service (stateless: everything comes from the registry).
#[derive(Debug, Default)]
pub struct CatalogService;

#[tonic::async_trait]
impl pb::catalog_server::Catalog for CatalogService {
    async fn list_games(
        &self,
        _request: Request<pb::ListGamesRequest>,
    ) -> Result<Response<pb::ListGamesResponse>, Status> {
        let games = registry::entries().iter().map(describe_game).collect();
        Ok(Response::new(pb::ListGamesResponse {
            games,
            server_version: env!("CARGO_PKG_VERSION").to_owned(),
        }))
    }

    async fn get_game(
        &self,
        request: Request<pb::GetGameRequest>,
    ) -> Result<Response<pb::GetGameResponse>, Status> {
        let request = request.into_inner();
        let entry = registry::entry(&request.name).map_err(|e| status_from_game_error(&e))?;
        let game = make_game(&request.name, &request.parameters)
            .map_err(|e| status_from_game_error(&e))?;
        Ok(Response::new(pb::GetGameResponse {
            game: Some(describe_game(entry)),
            sizes: Some(game_sizes(game.as_ref())),
        }))
    }
}

/// A registry entry as a `GameDescription`.
pub fn describe_game(entry: &GameEntry) -> pb::GameDescription {
    let info = entry.info;
    let no_params: [(&str, &str); 0] = [];
    pb::GameDescription {
        name: info.name.to_string(),
        long_name: info.long_name.to_string(),
        description: info.description.to_string(),
        min_players: info.min_players as u32,
        max_players: info.max_players as u32,
        chance_mode: fact_word(&info.chance),
        information: fact_word(&info.information),
        dynamics: fact_word(&info.dynamics),
        utility: fact_word(&info.utility),
        reward_model: fact_word(&info.reward_model),
        parameters: entry.params.iter().map(describe_parameter).collect(),
        bot_kinds: bot_kinds(entry),
        default_sizes: make_game(info.name, no_params)
            .ok()
            .map(|game| game_sizes(game.as_ref())),
    }
}

/// The bot kinds offered for a game at its default parameters: every kind but `cfr`, which
/// only small games (Kuhn and Leduc poker) can be solved for, and `br`, whose default target
/// is the game's shipped policy, where the game ships none.
fn bot_kinds(entry: &GameEntry) -> Vec<String> {
    let solvable = solvable_games().contains(&entry.info.name);
    BOT_KINDS
        .iter()
        .filter(|k| **k != "cfr" || solvable)
        .filter(|k| **k != "br" || entry.policy.is_some())
        .map(|k| k.to_string())
        .collect()
}

/// The registered games small enough to solve at their default parameters, found once (the
/// estimate plays 64 random games of each, too much work for every catalog call).
fn solvable_games() -> &'static [&'static str] {
    static SOLVABLE: OnceLock<Vec<&'static str>> = OnceLock::new();
    SOLVABLE.get_or_init(|| {
        let no_params: [(&str, &str); 0] = [];
        registry::entries()
            .iter()
            .filter(|e| {
                make_game(e.info.name, no_params)
                    .is_ok_and(|g| checkraise_core::solve::solvable(g.as_ref()))
            })
            .map(|e| e.info.name)
            .collect()
    })
}

fn describe_parameter(spec: &registry::ParamSpec) -> pb::ParameterSpec {
    let mut out = pb::ParameterSpec {
        name: spec.name.to_string(),
        description: spec.description.to_string(),
        default_value: spec.default.to_string(),
        ..Default::default()
    };
    match &spec.kind {
        ParamKind::Int { min, max } => {
            out.set_type(pb::ParameterType::Int);
            out.min = *min;
            out.max = *max;
        }
        ParamKind::Bool => out.set_type(pb::ParameterType::Bool),
        ParamKind::Choice { options } => {
            out.set_type(pb::ParameterType::Choice);
            out.options = options.iter().map(|o| o.to_string()).collect();
        }
        ParamKind::Text => out.set_type(pb::ParameterType::Text),
    }
    out
}

/// A game instance's sizes and validated parameters.
pub fn game_sizes(game: &dyn Game) -> pb::GameSizes {
    let parameters: HashMap<String, String> = game
        .params()
        .values()
        .iter()
        .map(|(k, v)| (k.clone(), v.to_string()))
        .collect();
    pb::GameSizes {
        parameters,
        num_players: game.num_players() as u32,
        num_distinct_actions: game.num_distinct_actions() as u32,
        max_chance_outcomes: game.max_chance_outcomes() as u32,
        observation_shape: game.observation_shape().iter().map(|&d| d as u32).collect(),
        min_utility: game.min_utility(),
        max_utility: game.max_utility(),
        utility_sum: game.utility_sum(),
        max_game_length: game.max_game_length() as u32,
    }
}
