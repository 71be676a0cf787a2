//! dm_env_rpc's tensors: the agent's specs, actions read and checked against them, and the
//! settings of `CreateWorld`, `JoinWorld` and `ResetWorld`, with errors that name the field.

use std::collections::HashMap;

use checkraise_core::bots::BotSpec;
use checkraise_core::table::SeatSpec;
use checkraise_core::{Game, Player, State};
use tonic::Status;

use crate::dm_env_pb::dm_env_rpc::v1 as pb;
use crate::errors::capped_message;
use pb::tensor::Payload as Data;
use pb::tensor_spec::value::Payload as Bound;

use super::{
    ACTION_MASK_UID, ACTION_UID, DEFAULT_OPPONENT, DISCOUNT_UID, OBSERVATION_UID, REWARD_UID,
};

pub(super) fn tensor(data: Data, shape: &[usize]) -> pb::Tensor {
    pb::Tensor {
        payload: Some(data),
        shape: shape.iter().map(|&d| d as i32).collect(),
    }
}

pub(super) fn shape_i32(shape: &[usize]) -> Vec<i32> {
    shape.iter().map(|&d| d as i32).collect()
}

/// The specs of a game's agent: one action, four observations (see the module's docs).
pub(super) fn specs(game: &dyn Game) -> pb::ActionObservationSpecs {
    let actions = game.num_distinct_actions();
    let spec = |name: &str, shape: Vec<i32>, dtype: pb::DataType| pb::TensorSpec {
        name: name.to_string(),
        shape,
        dtype: dtype as i32,
        min: None,
        max: None,
    };
    let doubles = |v: f64| pb::tensor_spec::Value {
        payload: Some(Bound::Doubles(pb::tensor::DoubleArray { array: vec![v] })),
    };
    let int32s = |v: i32| pb::tensor_spec::Value {
        payload: Some(Bound::Int32s(pb::tensor::Int32Array { array: vec![v] })),
    };
    let action = pb::TensorSpec {
        min: Some(int32s(0)),
        max: Some(int32s(actions as i32 - 1)),
        ..spec("action", Vec::new(), pb::DataType::Int32)
    };
    let observations = HashMap::from([
        (
            OBSERVATION_UID,
            spec(
                "observation",
                shape_i32(&game.observation_shape()),
                pb::DataType::Float,
            ),
        ),
        (
            ACTION_MASK_UID,
            spec("action_mask", vec![actions as i32], pb::DataType::Bool),
        ),
        (REWARD_UID, spec("reward", Vec::new(), pb::DataType::Double)),
        (
            DISCOUNT_UID,
            pb::TensorSpec {
                min: Some(doubles(0.0)),
                max: Some(doubles(1.0)),
                ..spec("discount", Vec::new(), pb::DataType::Double)
            },
        ),
    ]);
    pb::ActionObservationSpecs {
        actions: HashMap::from([(ACTION_UID, action)]),
        observations,
    }
}

/// The legal actions, as ids with their texts (the first few, when there are many).
pub(super) fn describe_legal(state: &dyn State, player: Player) -> String {
    const SHOWN: usize = 16;
    let legal = state.legal_actions_for(player);
    let mut parts: Vec<String> = legal
        .iter()
        .take(SHOWN)
        .map(|&a| format!("{a} ({})", state.action_to_string(player, a)))
        .collect();
    if legal.len() > SHOWN {
        parts.push(format!("... {} in all", legal.len()));
    }
    if parts.is_empty() {
        "none".to_string()
    } else {
        parts.join(", ")
    }
}

/// The action in a step's actions, if any: checked to be the one action uid, an int32
/// scalar, within its bounds.
pub(super) fn read_action(
    actions: &HashMap<u64, pb::Tensor>,
    num_actions: usize,
) -> Result<Option<u32>, Status> {
    if let Some(uid) = actions.keys().find(|&&uid| uid != ACTION_UID) {
        return Err(Status::invalid_argument(format!(
            "no action has uid {uid}; the one action is uid {ACTION_UID} `action`"
        )));
    }
    let Some(tensor) = actions.get(&ACTION_UID) else {
        return Ok(None);
    };
    let values = match &tensor.payload {
        Some(Data::Int32s(a)) => &a.array,
        other => {
            return Err(Status::invalid_argument(format!(
                "action `action` must be an int32 scalar; got {} data",
                payload_name(other.as_ref())
            )));
        }
    };
    if !tensor.shape.is_empty() || values.len() != 1 {
        return Err(Status::invalid_argument(format!(
            "action `action` must be an int32 scalar (shape []); got shape {:?} with {} values",
            tensor.shape,
            values.len()
        )));
    }
    let value = values[0];
    if value < 0 || value as usize >= num_actions {
        return Err(Status::invalid_argument(format!(
            "action {value} is out of bounds: action ids are 0..={}",
            num_actions - 1
        )));
    }
    Ok(Some(value as u32))
}

pub(super) fn payload_name(data: Option<&Data>) -> &'static str {
    match data {
        None => "no",
        Some(Data::Floats(_)) => "float",
        Some(Data::Doubles(_)) => "double",
        Some(Data::Int8s(_)) => "int8",
        Some(Data::Int32s(_)) => "int32",
        Some(Data::Int64s(_)) => "int64",
        Some(Data::Uint8s(_)) => "uint8",
        Some(Data::Uint32s(_)) => "uint32",
        Some(Data::Uint64s(_)) => "uint64",
        Some(Data::Bools(_)) => "bool",
        Some(Data::Strings(_)) => "string",
        Some(Data::Protos(_)) => "proto",
    }
}

/// Refuses settings other than `allowed`.
pub(super) fn check_names(
    settings: &HashMap<String, pb::Tensor>,
    allowed: &[&str],
    described: &str,
) -> Result<(), Status> {
    let mut unknown: Vec<&str> = settings
        .keys()
        .map(String::as_str)
        .filter(|k| !allowed.contains(k))
        .collect();
    unknown.sort_unstable();
    if unknown.is_empty() {
        Ok(())
    } else {
        Err(Status::invalid_argument(format!(
            "unknown setting(s) {}; the settings here are {described}",
            unknown
                .iter()
                .map(|k| format!("`{k}`"))
                .collect::<Vec<_>>()
                .join(", ")
        )))
    }
}

/// Refuses a setting tensor that is not one element.
pub(super) fn check_scalar(name: &str, tensor: &pb::Tensor, count: usize) -> Result<(), Status> {
    let elements: i64 = tensor.shape.iter().map(|&d| i64::from(d)).product();
    if count != 1 || elements != 1 {
        return Err(Status::invalid_argument(format!(
            "setting `{name}` must be a scalar; got shape {:?} with {count} values",
            tensor.shape
        )));
    }
    Ok(())
}

pub(super) fn string_setting(name: &str, tensor: &pb::Tensor) -> Result<String, Status> {
    match &tensor.payload {
        Some(Data::Strings(s)) => {
            check_scalar(name, tensor, s.array.len())?;
            Ok(s.array[0].clone())
        }
        other => Err(Status::invalid_argument(format!(
            "setting `{name}` must be a string; got {} data",
            payload_name(other.as_ref())
        ))),
    }
}

pub(super) fn int_setting(name: &str, tensor: &pb::Tensor) -> Result<i128, Status> {
    let values: Vec<i128> = match &tensor.payload {
        Some(Data::Int8s(a)) => a.array.iter().map(|&b| i128::from(b as i8)).collect(),
        Some(Data::Uint8s(a)) => a.array.iter().map(|&b| i128::from(b)).collect(),
        Some(Data::Int32s(a)) => a.array.iter().map(|&v| i128::from(v)).collect(),
        Some(Data::Int64s(a)) => a.array.iter().map(|&v| i128::from(v)).collect(),
        Some(Data::Uint32s(a)) => a.array.iter().map(|&v| i128::from(v)).collect(),
        Some(Data::Uint64s(a)) => a.array.iter().map(|&v| i128::from(v)).collect(),
        other => {
            return Err(Status::invalid_argument(format!(
                "setting `{name}` must be an integer; got {} data",
                payload_name(other.as_ref())
            )));
        }
    };
    check_scalar(name, tensor, values.len())?;
    Ok(values[0])
}

pub(super) fn seed_setting(tensor: &pb::Tensor) -> Result<u64, Status> {
    let seed = int_setting("seed", tensor)?;
    u64::try_from(seed).map_err(|_| {
        Status::invalid_argument(format!(
            "setting `seed` must be from 0 to 2^64 - 1; got {seed}"
        ))
    })
}

pub(super) fn seat_setting(tensor: Option<&pb::Tensor>, players: usize) -> Result<usize, Status> {
    let Some(tensor) = tensor else {
        return Ok(0);
    };
    let seat = int_setting("seat", tensor)?;
    usize::try_from(seat)
        .ok()
        .filter(|&s| s < players)
        .ok_or_else(|| {
            Status::invalid_argument(format!(
                "setting `seat` is {seat}, but this game's seats are 0..={}",
                players - 1
            ))
        })
}

pub(super) fn opponent_setting(
    game: &dyn Game,
    tensor: Option<&pb::Tensor>,
    max_bot_ms: u64,
) -> Result<BotSpec, Status> {
    let text = match tensor {
        Some(t) => string_setting("opponent", t)?,
        None => DEFAULT_OPPONENT.to_string(),
    };
    let bad = |e: String| Status::invalid_argument(format!("setting `opponent`: {e}"));
    let rules = crate::matches::seat_rules(max_bot_ms);
    // Built once here so a policy that does not fit the game is refused now, not per game.
    match rules
        .seat(game, Some(&text))
        .map_err(|e| bad(e.to_string()))?
        .spec
    {
        SeatSpec::Bot(spec) => Ok(spec),
        SeatSpec::Outside => Err(bad(format!(
            "'{text}' is a person's seat; the opponent is a bot spec"
        ))),
    }
}

/// The status that ends a session whose next request could not be read: INVALID_ARGUMENT
/// for bytes that do not decode (tonic says INTERNAL), the status as it came otherwise.
pub(super) fn request_error(status: &Status) -> Status {
    if status.code() == tonic::Code::Internal
        && status
            .message()
            .starts_with("failed to decode Protobuf message")
    {
        return Status::invalid_argument(capped_message(&format!(
            "a request does not decode as a dm_env_rpc EnvironmentRequest: {}",
            status.message()
        )));
    }
    Status::new(status.code(), capped_message(status.message()))
}
