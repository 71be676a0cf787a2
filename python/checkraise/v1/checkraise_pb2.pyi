from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class ParameterType(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    PARAMETER_TYPE_UNSPECIFIED: _ClassVar[ParameterType]
    PARAMETER_TYPE_INT: _ClassVar[ParameterType]
    PARAMETER_TYPE_BOOL: _ClassVar[ParameterType]
    PARAMETER_TYPE_CHOICE: _ClassVar[ParameterType]
    PARAMETER_TYPE_TEXT: _ClassVar[ParameterType]

class DataType(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    DATA_TYPE_UNSPECIFIED: _ClassVar[DataType]
    DATA_TYPE_FLOAT32: _ClassVar[DataType]
    DATA_TYPE_INT32: _ClassVar[DataType]
    DATA_TYPE_BOOL: _ClassVar[DataType]
    DATA_TYPE_UINT8: _ClassVar[DataType]

class ActStatus(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    ACT_STATUS_UNSPECIFIED: _ClassVar[ActStatus]
    ACT_STATUS_APPLIED: _ClassVar[ActStatus]
    ACT_STATUS_ALREADY_APPLIED: _ClassVar[ActStatus]

class ObservationEncoding(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    OBSERVATION_ENCODING_UNSPECIFIED: _ClassVar[ObservationEncoding]
    OBSERVATION_ENCODING_FLOAT32: _ClassVar[ObservationEncoding]
    OBSERVATION_ENCODING_COMPACT: _ClassVar[ObservationEncoding]

class AutoresetMode(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    AUTORESET_MODE_UNSPECIFIED: _ClassVar[AutoresetMode]
    AUTORESET_MODE_NEXT_STEP: _ClassVar[AutoresetMode]
    AUTORESET_MODE_SAME_STEP: _ClassVar[AutoresetMode]

class MatchStatus(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    MATCH_STATUS_UNSPECIFIED: _ClassVar[MatchStatus]
    MATCH_STATUS_LIVE: _ClassVar[MatchStatus]
    MATCH_STATUS_FINISHED: _ClassVar[MatchStatus]
    MATCH_STATUS_EXPIRED: _ClassVar[MatchStatus]

class LadderEventKind(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    LADDER_EVENT_KIND_UNSPECIFIED: _ClassVar[LadderEventKind]
    LADDER_EVENT_KIND_CONNECTED: _ClassVar[LadderEventKind]
    LADDER_EVENT_KIND_GAME_STARTED: _ClassVar[LadderEventKind]
    LADDER_EVENT_KIND_GAME_FINISHED: _ClassVar[LadderEventKind]
    LADDER_EVENT_KIND_PAUSED: _ClassVar[LadderEventKind]
PARAMETER_TYPE_UNSPECIFIED: ParameterType
PARAMETER_TYPE_INT: ParameterType
PARAMETER_TYPE_BOOL: ParameterType
PARAMETER_TYPE_CHOICE: ParameterType
PARAMETER_TYPE_TEXT: ParameterType
DATA_TYPE_UNSPECIFIED: DataType
DATA_TYPE_FLOAT32: DataType
DATA_TYPE_INT32: DataType
DATA_TYPE_BOOL: DataType
DATA_TYPE_UINT8: DataType
ACT_STATUS_UNSPECIFIED: ActStatus
ACT_STATUS_APPLIED: ActStatus
ACT_STATUS_ALREADY_APPLIED: ActStatus
OBSERVATION_ENCODING_UNSPECIFIED: ObservationEncoding
OBSERVATION_ENCODING_FLOAT32: ObservationEncoding
OBSERVATION_ENCODING_COMPACT: ObservationEncoding
AUTORESET_MODE_UNSPECIFIED: AutoresetMode
AUTORESET_MODE_NEXT_STEP: AutoresetMode
AUTORESET_MODE_SAME_STEP: AutoresetMode
MATCH_STATUS_UNSPECIFIED: MatchStatus
MATCH_STATUS_LIVE: MatchStatus
MATCH_STATUS_FINISHED: MatchStatus
MATCH_STATUS_EXPIRED: MatchStatus
LADDER_EVENT_KIND_UNSPECIFIED: LadderEventKind
LADDER_EVENT_KIND_CONNECTED: LadderEventKind
LADDER_EVENT_KIND_GAME_STARTED: LadderEventKind
LADDER_EVENT_KIND_GAME_FINISHED: LadderEventKind
LADDER_EVENT_KIND_PAUSED: LadderEventKind

class ListGamesRequest(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class ListGamesResponse(_message.Message):
    __slots__ = ("games", "server_version")
    GAMES_FIELD_NUMBER: _ClassVar[int]
    SERVER_VERSION_FIELD_NUMBER: _ClassVar[int]
    games: _containers.RepeatedCompositeFieldContainer[GameDescription]
    server_version: str
    def __init__(self, games: _Optional[_Iterable[_Union[GameDescription, _Mapping]]] = ..., server_version: _Optional[str] = ...) -> None: ...

class GetGameRequest(_message.Message):
    __slots__ = ("name", "parameters")
    class ParametersEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: str
        def __init__(self, key: _Optional[str] = ..., value: _Optional[str] = ...) -> None: ...
    NAME_FIELD_NUMBER: _ClassVar[int]
    PARAMETERS_FIELD_NUMBER: _ClassVar[int]
    name: str
    parameters: _containers.ScalarMap[str, str]
    def __init__(self, name: _Optional[str] = ..., parameters: _Optional[_Mapping[str, str]] = ...) -> None: ...

class GetGameResponse(_message.Message):
    __slots__ = ("game", "sizes")
    GAME_FIELD_NUMBER: _ClassVar[int]
    SIZES_FIELD_NUMBER: _ClassVar[int]
    game: GameDescription
    sizes: GameSizes
    def __init__(self, game: _Optional[_Union[GameDescription, _Mapping]] = ..., sizes: _Optional[_Union[GameSizes, _Mapping]] = ...) -> None: ...

class GameDescription(_message.Message):
    __slots__ = ("name", "long_name", "description", "min_players", "max_players", "chance_mode", "information", "dynamics", "utility", "reward_model", "parameters", "bot_kinds", "default_sizes")
    NAME_FIELD_NUMBER: _ClassVar[int]
    LONG_NAME_FIELD_NUMBER: _ClassVar[int]
    DESCRIPTION_FIELD_NUMBER: _ClassVar[int]
    MIN_PLAYERS_FIELD_NUMBER: _ClassVar[int]
    MAX_PLAYERS_FIELD_NUMBER: _ClassVar[int]
    CHANCE_MODE_FIELD_NUMBER: _ClassVar[int]
    INFORMATION_FIELD_NUMBER: _ClassVar[int]
    DYNAMICS_FIELD_NUMBER: _ClassVar[int]
    UTILITY_FIELD_NUMBER: _ClassVar[int]
    REWARD_MODEL_FIELD_NUMBER: _ClassVar[int]
    PARAMETERS_FIELD_NUMBER: _ClassVar[int]
    BOT_KINDS_FIELD_NUMBER: _ClassVar[int]
    DEFAULT_SIZES_FIELD_NUMBER: _ClassVar[int]
    name: str
    long_name: str
    description: str
    min_players: int
    max_players: int
    chance_mode: str
    information: str
    dynamics: str
    utility: str
    reward_model: str
    parameters: _containers.RepeatedCompositeFieldContainer[ParameterSpec]
    bot_kinds: _containers.RepeatedScalarFieldContainer[str]
    default_sizes: GameSizes
    def __init__(self, name: _Optional[str] = ..., long_name: _Optional[str] = ..., description: _Optional[str] = ..., min_players: _Optional[int] = ..., max_players: _Optional[int] = ..., chance_mode: _Optional[str] = ..., information: _Optional[str] = ..., dynamics: _Optional[str] = ..., utility: _Optional[str] = ..., reward_model: _Optional[str] = ..., parameters: _Optional[_Iterable[_Union[ParameterSpec, _Mapping]]] = ..., bot_kinds: _Optional[_Iterable[str]] = ..., default_sizes: _Optional[_Union[GameSizes, _Mapping]] = ...) -> None: ...

class ParameterSpec(_message.Message):
    __slots__ = ("name", "description", "default_value", "type", "min", "max", "options")
    NAME_FIELD_NUMBER: _ClassVar[int]
    DESCRIPTION_FIELD_NUMBER: _ClassVar[int]
    DEFAULT_VALUE_FIELD_NUMBER: _ClassVar[int]
    TYPE_FIELD_NUMBER: _ClassVar[int]
    MIN_FIELD_NUMBER: _ClassVar[int]
    MAX_FIELD_NUMBER: _ClassVar[int]
    OPTIONS_FIELD_NUMBER: _ClassVar[int]
    name: str
    description: str
    default_value: str
    type: ParameterType
    min: int
    max: int
    options: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, name: _Optional[str] = ..., description: _Optional[str] = ..., default_value: _Optional[str] = ..., type: _Optional[_Union[ParameterType, str]] = ..., min: _Optional[int] = ..., max: _Optional[int] = ..., options: _Optional[_Iterable[str]] = ...) -> None: ...

class GameSizes(_message.Message):
    __slots__ = ("parameters", "num_players", "num_distinct_actions", "max_chance_outcomes", "observation_shape", "min_utility", "max_utility", "utility_sum", "max_game_length")
    class ParametersEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: str
        def __init__(self, key: _Optional[str] = ..., value: _Optional[str] = ...) -> None: ...
    PARAMETERS_FIELD_NUMBER: _ClassVar[int]
    NUM_PLAYERS_FIELD_NUMBER: _ClassVar[int]
    NUM_DISTINCT_ACTIONS_FIELD_NUMBER: _ClassVar[int]
    MAX_CHANCE_OUTCOMES_FIELD_NUMBER: _ClassVar[int]
    OBSERVATION_SHAPE_FIELD_NUMBER: _ClassVar[int]
    MIN_UTILITY_FIELD_NUMBER: _ClassVar[int]
    MAX_UTILITY_FIELD_NUMBER: _ClassVar[int]
    UTILITY_SUM_FIELD_NUMBER: _ClassVar[int]
    MAX_GAME_LENGTH_FIELD_NUMBER: _ClassVar[int]
    parameters: _containers.ScalarMap[str, str]
    num_players: int
    num_distinct_actions: int
    max_chance_outcomes: int
    observation_shape: _containers.RepeatedScalarFieldContainer[int]
    min_utility: float
    max_utility: float
    utility_sum: float
    max_game_length: int
    def __init__(self, parameters: _Optional[_Mapping[str, str]] = ..., num_players: _Optional[int] = ..., num_distinct_actions: _Optional[int] = ..., max_chance_outcomes: _Optional[int] = ..., observation_shape: _Optional[_Iterable[int]] = ..., min_utility: _Optional[float] = ..., max_utility: _Optional[float] = ..., utility_sum: _Optional[float] = ..., max_game_length: _Optional[int] = ...) -> None: ...

class Tensor(_message.Message):
    __slots__ = ("dtype", "shape", "data")
    DTYPE_FIELD_NUMBER: _ClassVar[int]
    SHAPE_FIELD_NUMBER: _ClassVar[int]
    DATA_FIELD_NUMBER: _ClassVar[int]
    dtype: DataType
    shape: _containers.RepeatedScalarFieldContainer[int]
    data: bytes
    def __init__(self, dtype: _Optional[_Union[DataType, str]] = ..., shape: _Optional[_Iterable[int]] = ..., data: _Optional[bytes] = ...) -> None: ...

class CreateMatchRequest(_message.Message):
    __slots__ = ("game", "parameters", "seed", "seats")
    class ParametersEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: str
        def __init__(self, key: _Optional[str] = ..., value: _Optional[str] = ...) -> None: ...
    GAME_FIELD_NUMBER: _ClassVar[int]
    PARAMETERS_FIELD_NUMBER: _ClassVar[int]
    SEED_FIELD_NUMBER: _ClassVar[int]
    SEATS_FIELD_NUMBER: _ClassVar[int]
    game: str
    parameters: _containers.ScalarMap[str, str]
    seed: int
    seats: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, game: _Optional[str] = ..., parameters: _Optional[_Mapping[str, str]] = ..., seed: _Optional[int] = ..., seats: _Optional[_Iterable[str]] = ...) -> None: ...

class CreateMatchResponse(_message.Message):
    __slots__ = ("match_id", "seed", "sizes", "seats")
    MATCH_ID_FIELD_NUMBER: _ClassVar[int]
    SEED_FIELD_NUMBER: _ClassVar[int]
    SIZES_FIELD_NUMBER: _ClassVar[int]
    SEATS_FIELD_NUMBER: _ClassVar[int]
    match_id: str
    seed: int
    sizes: GameSizes
    seats: _containers.RepeatedCompositeFieldContainer[SeatStatus]
    def __init__(self, match_id: _Optional[str] = ..., seed: _Optional[int] = ..., sizes: _Optional[_Union[GameSizes, _Mapping]] = ..., seats: _Optional[_Iterable[_Union[SeatStatus, _Mapping]]] = ...) -> None: ...

class JoinSeatRequest(_message.Message):
    __slots__ = ("match_id", "seat", "request_id")
    MATCH_ID_FIELD_NUMBER: _ClassVar[int]
    SEAT_FIELD_NUMBER: _ClassVar[int]
    REQUEST_ID_FIELD_NUMBER: _ClassVar[int]
    match_id: str
    seat: int
    request_id: str
    def __init__(self, match_id: _Optional[str] = ..., seat: _Optional[int] = ..., request_id: _Optional[str] = ...) -> None: ...

class JoinSeatResponse(_message.Message):
    __slots__ = ("seat", "seat_token", "repeated")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    SEAT_TOKEN_FIELD_NUMBER: _ClassVar[int]
    REPEATED_FIELD_NUMBER: _ClassVar[int]
    seat: int
    seat_token: str
    repeated: bool
    def __init__(self, seat: _Optional[int] = ..., seat_token: _Optional[str] = ..., repeated: _Optional[bool] = ...) -> None: ...

class GetViewRequest(_message.Message):
    __slots__ = ("match_id", "seat", "view_options")
    MATCH_ID_FIELD_NUMBER: _ClassVar[int]
    SEAT_FIELD_NUMBER: _ClassVar[int]
    VIEW_OPTIONS_FIELD_NUMBER: _ClassVar[int]
    match_id: str
    seat: int
    view_options: ViewOptions
    def __init__(self, match_id: _Optional[str] = ..., seat: _Optional[int] = ..., view_options: _Optional[_Union[ViewOptions, _Mapping]] = ...) -> None: ...

class ViewOptions(_message.Message):
    __slots__ = ("omit_view_json", "omit_observation", "omit_observation_text", "omit_action_texts", "with_sample_state")
    OMIT_VIEW_JSON_FIELD_NUMBER: _ClassVar[int]
    OMIT_OBSERVATION_FIELD_NUMBER: _ClassVar[int]
    OMIT_OBSERVATION_TEXT_FIELD_NUMBER: _ClassVar[int]
    OMIT_ACTION_TEXTS_FIELD_NUMBER: _ClassVar[int]
    WITH_SAMPLE_STATE_FIELD_NUMBER: _ClassVar[int]
    omit_view_json: bool
    omit_observation: bool
    omit_observation_text: bool
    omit_action_texts: bool
    with_sample_state: bool
    def __init__(self, omit_view_json: _Optional[bool] = ..., omit_observation: _Optional[bool] = ..., omit_observation_text: _Optional[bool] = ..., omit_action_texts: _Optional[bool] = ..., with_sample_state: _Optional[bool] = ...) -> None: ...

class ActRequest(_message.Message):
    __slots__ = ("match_id", "seat", "action_id", "action_text", "view_options", "expected_version")
    MATCH_ID_FIELD_NUMBER: _ClassVar[int]
    SEAT_FIELD_NUMBER: _ClassVar[int]
    ACTION_ID_FIELD_NUMBER: _ClassVar[int]
    ACTION_TEXT_FIELD_NUMBER: _ClassVar[int]
    VIEW_OPTIONS_FIELD_NUMBER: _ClassVar[int]
    EXPECTED_VERSION_FIELD_NUMBER: _ClassVar[int]
    match_id: str
    seat: int
    action_id: int
    action_text: str
    view_options: ViewOptions
    expected_version: int
    def __init__(self, match_id: _Optional[str] = ..., seat: _Optional[int] = ..., action_id: _Optional[int] = ..., action_text: _Optional[str] = ..., view_options: _Optional[_Union[ViewOptions, _Mapping]] = ..., expected_version: _Optional[int] = ...) -> None: ...

class GetSpectatorViewRequest(_message.Message):
    __slots__ = ("match_id",)
    MATCH_ID_FIELD_NUMBER: _ClassVar[int]
    match_id: str
    def __init__(self, match_id: _Optional[str] = ...) -> None: ...

class WatchSeatRequest(_message.Message):
    __slots__ = ("match_id", "seat", "view_options", "presence")
    MATCH_ID_FIELD_NUMBER: _ClassVar[int]
    SEAT_FIELD_NUMBER: _ClassVar[int]
    VIEW_OPTIONS_FIELD_NUMBER: _ClassVar[int]
    PRESENCE_FIELD_NUMBER: _ClassVar[int]
    match_id: str
    seat: int
    view_options: ViewOptions
    presence: bool
    def __init__(self, match_id: _Optional[str] = ..., seat: _Optional[int] = ..., view_options: _Optional[_Union[ViewOptions, _Mapping]] = ..., presence: _Optional[bool] = ...) -> None: ...

class WatchSpectatorRequest(_message.Message):
    __slots__ = ("match_id", "presence")
    MATCH_ID_FIELD_NUMBER: _ClassVar[int]
    PRESENCE_FIELD_NUMBER: _ClassVar[int]
    match_id: str
    presence: bool
    def __init__(self, match_id: _Optional[str] = ..., presence: _Optional[bool] = ...) -> None: ...

class SeatStatus(_message.Message):
    __slots__ = ("seat", "kind", "taken", "connected")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    KIND_FIELD_NUMBER: _ClassVar[int]
    TAKEN_FIELD_NUMBER: _ClassVar[int]
    CONNECTED_FIELD_NUMBER: _ClassVar[int]
    seat: int
    kind: str
    taken: bool
    connected: bool
    def __init__(self, seat: _Optional[int] = ..., kind: _Optional[str] = ..., taken: _Optional[bool] = ..., connected: _Optional[bool] = ...) -> None: ...

class LegalAction(_message.Message):
    __slots__ = ("id", "text", "action_json")
    ID_FIELD_NUMBER: _ClassVar[int]
    TEXT_FIELD_NUMBER: _ClassVar[int]
    ACTION_JSON_FIELD_NUMBER: _ClassVar[int]
    id: int
    text: str
    action_json: str
    def __init__(self, id: _Optional[int] = ..., text: _Optional[str] = ..., action_json: _Optional[str] = ...) -> None: ...

class SeatView(_message.Message):
    __slots__ = ("match_id", "seat", "version", "view_json", "current_player", "is_terminal", "may_act", "action_submitted", "legal_actions", "returns", "seat_return", "observation", "observation_text", "seats", "act_status", "omitted_parts", "chosen_seed", "sample_state")
    MATCH_ID_FIELD_NUMBER: _ClassVar[int]
    SEAT_FIELD_NUMBER: _ClassVar[int]
    VERSION_FIELD_NUMBER: _ClassVar[int]
    VIEW_JSON_FIELD_NUMBER: _ClassVar[int]
    CURRENT_PLAYER_FIELD_NUMBER: _ClassVar[int]
    IS_TERMINAL_FIELD_NUMBER: _ClassVar[int]
    MAY_ACT_FIELD_NUMBER: _ClassVar[int]
    ACTION_SUBMITTED_FIELD_NUMBER: _ClassVar[int]
    LEGAL_ACTIONS_FIELD_NUMBER: _ClassVar[int]
    RETURNS_FIELD_NUMBER: _ClassVar[int]
    SEAT_RETURN_FIELD_NUMBER: _ClassVar[int]
    OBSERVATION_FIELD_NUMBER: _ClassVar[int]
    OBSERVATION_TEXT_FIELD_NUMBER: _ClassVar[int]
    SEATS_FIELD_NUMBER: _ClassVar[int]
    ACT_STATUS_FIELD_NUMBER: _ClassVar[int]
    OMITTED_PARTS_FIELD_NUMBER: _ClassVar[int]
    CHOSEN_SEED_FIELD_NUMBER: _ClassVar[int]
    SAMPLE_STATE_FIELD_NUMBER: _ClassVar[int]
    match_id: str
    seat: int
    version: int
    view_json: str
    current_player: int
    is_terminal: bool
    may_act: bool
    action_submitted: bool
    legal_actions: _containers.RepeatedCompositeFieldContainer[LegalAction]
    returns: _containers.RepeatedScalarFieldContainer[float]
    seat_return: float
    observation: Tensor
    observation_text: str
    seats: _containers.RepeatedCompositeFieldContainer[SeatStatus]
    act_status: ActStatus
    omitted_parts: _containers.RepeatedScalarFieldContainer[str]
    chosen_seed: bool
    sample_state: str
    def __init__(self, match_id: _Optional[str] = ..., seat: _Optional[int] = ..., version: _Optional[int] = ..., view_json: _Optional[str] = ..., current_player: _Optional[int] = ..., is_terminal: _Optional[bool] = ..., may_act: _Optional[bool] = ..., action_submitted: _Optional[bool] = ..., legal_actions: _Optional[_Iterable[_Union[LegalAction, _Mapping]]] = ..., returns: _Optional[_Iterable[float]] = ..., seat_return: _Optional[float] = ..., observation: _Optional[_Union[Tensor, _Mapping]] = ..., observation_text: _Optional[str] = ..., seats: _Optional[_Iterable[_Union[SeatStatus, _Mapping]]] = ..., act_status: _Optional[_Union[ActStatus, str]] = ..., omitted_parts: _Optional[_Iterable[str]] = ..., chosen_seed: _Optional[bool] = ..., sample_state: _Optional[str] = ...) -> None: ...

class MatchEvent(_message.Message):
    __slots__ = ("actor", "own_action", "view")
    ACTOR_FIELD_NUMBER: _ClassVar[int]
    OWN_ACTION_FIELD_NUMBER: _ClassVar[int]
    VIEW_FIELD_NUMBER: _ClassVar[int]
    actor: int
    own_action: LegalAction
    view: SeatView
    def __init__(self, actor: _Optional[int] = ..., own_action: _Optional[_Union[LegalAction, _Mapping]] = ..., view: _Optional[_Union[SeatView, _Mapping]] = ...) -> None: ...

class CreateEnvsRequest(_message.Message):
    __slots__ = ("game", "parameters", "num_envs", "seed", "all_seats", "autoreset_mode", "max_episode_steps", "observation_encoding", "opponents", "learner_seat", "random_learner_seat")
    class ParametersEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: str
        def __init__(self, key: _Optional[str] = ..., value: _Optional[str] = ...) -> None: ...
    GAME_FIELD_NUMBER: _ClassVar[int]
    PARAMETERS_FIELD_NUMBER: _ClassVar[int]
    NUM_ENVS_FIELD_NUMBER: _ClassVar[int]
    SEED_FIELD_NUMBER: _ClassVar[int]
    ALL_SEATS_FIELD_NUMBER: _ClassVar[int]
    AUTORESET_MODE_FIELD_NUMBER: _ClassVar[int]
    MAX_EPISODE_STEPS_FIELD_NUMBER: _ClassVar[int]
    OBSERVATION_ENCODING_FIELD_NUMBER: _ClassVar[int]
    OPPONENTS_FIELD_NUMBER: _ClassVar[int]
    LEARNER_SEAT_FIELD_NUMBER: _ClassVar[int]
    RANDOM_LEARNER_SEAT_FIELD_NUMBER: _ClassVar[int]
    game: str
    parameters: _containers.ScalarMap[str, str]
    num_envs: int
    seed: int
    all_seats: bool
    autoreset_mode: AutoresetMode
    max_episode_steps: int
    observation_encoding: ObservationEncoding
    opponents: _containers.RepeatedCompositeFieldContainer[EnvOpponent]
    learner_seat: int
    random_learner_seat: bool
    def __init__(self, game: _Optional[str] = ..., parameters: _Optional[_Mapping[str, str]] = ..., num_envs: _Optional[int] = ..., seed: _Optional[int] = ..., all_seats: _Optional[bool] = ..., autoreset_mode: _Optional[_Union[AutoresetMode, str]] = ..., max_episode_steps: _Optional[int] = ..., observation_encoding: _Optional[_Union[ObservationEncoding, str]] = ..., opponents: _Optional[_Iterable[_Union[EnvOpponent, _Mapping]]] = ..., learner_seat: _Optional[int] = ..., random_learner_seat: _Optional[bool] = ...) -> None: ...

class EnvOpponent(_message.Message):
    __slots__ = ("bot", "policy", "weight")
    BOT_FIELD_NUMBER: _ClassVar[int]
    POLICY_FIELD_NUMBER: _ClassVar[int]
    WEIGHT_FIELD_NUMBER: _ClassVar[int]
    bot: str
    policy: bytes
    weight: float
    def __init__(self, bot: _Optional[str] = ..., policy: _Optional[bytes] = ..., weight: _Optional[float] = ...) -> None: ...

class CompactLayout(_message.Message):
    __slots__ = ("observation_size", "bit_bytes", "scalar_indices", "row_bytes", "mask_bytes")
    OBSERVATION_SIZE_FIELD_NUMBER: _ClassVar[int]
    BIT_BYTES_FIELD_NUMBER: _ClassVar[int]
    SCALAR_INDICES_FIELD_NUMBER: _ClassVar[int]
    ROW_BYTES_FIELD_NUMBER: _ClassVar[int]
    MASK_BYTES_FIELD_NUMBER: _ClassVar[int]
    observation_size: int
    bit_bytes: int
    scalar_indices: _containers.RepeatedScalarFieldContainer[int]
    row_bytes: int
    mask_bytes: int
    def __init__(self, observation_size: _Optional[int] = ..., bit_bytes: _Optional[int] = ..., scalar_indices: _Optional[_Iterable[int]] = ..., row_bytes: _Optional[int] = ..., mask_bytes: _Optional[int] = ...) -> None: ...

class CreateEnvsResponse(_message.Message):
    __slots__ = ("envs_id", "sizes", "batch", "compact_layout")
    ENVS_ID_FIELD_NUMBER: _ClassVar[int]
    SIZES_FIELD_NUMBER: _ClassVar[int]
    BATCH_FIELD_NUMBER: _ClassVar[int]
    COMPACT_LAYOUT_FIELD_NUMBER: _ClassVar[int]
    envs_id: str
    sizes: GameSizes
    batch: EnvBatch
    compact_layout: CompactLayout
    def __init__(self, envs_id: _Optional[str] = ..., sizes: _Optional[_Union[GameSizes, _Mapping]] = ..., batch: _Optional[_Union[EnvBatch, _Mapping]] = ..., compact_layout: _Optional[_Union[CompactLayout, _Mapping]] = ...) -> None: ...

class ResetRequest(_message.Message):
    __slots__ = ("envs_id", "seed")
    ENVS_ID_FIELD_NUMBER: _ClassVar[int]
    SEED_FIELD_NUMBER: _ClassVar[int]
    envs_id: str
    seed: int
    def __init__(self, envs_id: _Optional[str] = ..., seed: _Optional[int] = ...) -> None: ...

class StepRequest(_message.Message):
    __slots__ = ("envs_id", "actions")
    ENVS_ID_FIELD_NUMBER: _ClassVar[int]
    ACTIONS_FIELD_NUMBER: _ClassVar[int]
    envs_id: str
    actions: Tensor
    def __init__(self, envs_id: _Optional[str] = ..., actions: _Optional[_Union[Tensor, _Mapping]] = ...) -> None: ...

class CloseEnvsRequest(_message.Message):
    __slots__ = ("envs_id",)
    ENVS_ID_FIELD_NUMBER: _ClassVar[int]
    envs_id: str
    def __init__(self, envs_id: _Optional[str] = ...) -> None: ...

class CloseEnvsResponse(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class EnvBatch(_message.Message):
    __slots__ = ("observations", "rewards", "current_players", "final_returns", "action_masks", "terminated", "truncated", "final_observations", "packed_observations", "packed_action_masks", "packed_final_observations", "learner_seats")
    OBSERVATIONS_FIELD_NUMBER: _ClassVar[int]
    REWARDS_FIELD_NUMBER: _ClassVar[int]
    CURRENT_PLAYERS_FIELD_NUMBER: _ClassVar[int]
    FINAL_RETURNS_FIELD_NUMBER: _ClassVar[int]
    ACTION_MASKS_FIELD_NUMBER: _ClassVar[int]
    TERMINATED_FIELD_NUMBER: _ClassVar[int]
    TRUNCATED_FIELD_NUMBER: _ClassVar[int]
    FINAL_OBSERVATIONS_FIELD_NUMBER: _ClassVar[int]
    PACKED_OBSERVATIONS_FIELD_NUMBER: _ClassVar[int]
    PACKED_ACTION_MASKS_FIELD_NUMBER: _ClassVar[int]
    PACKED_FINAL_OBSERVATIONS_FIELD_NUMBER: _ClassVar[int]
    LEARNER_SEATS_FIELD_NUMBER: _ClassVar[int]
    observations: Tensor
    rewards: Tensor
    current_players: Tensor
    final_returns: Tensor
    action_masks: Tensor
    terminated: Tensor
    truncated: Tensor
    final_observations: Tensor
    packed_observations: Tensor
    packed_action_masks: Tensor
    packed_final_observations: Tensor
    learner_seats: Tensor
    def __init__(self, observations: _Optional[_Union[Tensor, _Mapping]] = ..., rewards: _Optional[_Union[Tensor, _Mapping]] = ..., current_players: _Optional[_Union[Tensor, _Mapping]] = ..., final_returns: _Optional[_Union[Tensor, _Mapping]] = ..., action_masks: _Optional[_Union[Tensor, _Mapping]] = ..., terminated: _Optional[_Union[Tensor, _Mapping]] = ..., truncated: _Optional[_Union[Tensor, _Mapping]] = ..., final_observations: _Optional[_Union[Tensor, _Mapping]] = ..., packed_observations: _Optional[_Union[Tensor, _Mapping]] = ..., packed_action_masks: _Optional[_Union[Tensor, _Mapping]] = ..., packed_final_observations: _Optional[_Union[Tensor, _Mapping]] = ..., learner_seats: _Optional[_Union[Tensor, _Mapping]] = ...) -> None: ...

class ListMatchesRequest(_message.Message):
    __slots__ = ("game", "status", "created_after_ms", "created_before_ms", "page_size", "page_token")
    GAME_FIELD_NUMBER: _ClassVar[int]
    STATUS_FIELD_NUMBER: _ClassVar[int]
    CREATED_AFTER_MS_FIELD_NUMBER: _ClassVar[int]
    CREATED_BEFORE_MS_FIELD_NUMBER: _ClassVar[int]
    PAGE_SIZE_FIELD_NUMBER: _ClassVar[int]
    PAGE_TOKEN_FIELD_NUMBER: _ClassVar[int]
    game: str
    status: MatchStatus
    created_after_ms: int
    created_before_ms: int
    page_size: int
    page_token: str
    def __init__(self, game: _Optional[str] = ..., status: _Optional[_Union[MatchStatus, str]] = ..., created_after_ms: _Optional[int] = ..., created_before_ms: _Optional[int] = ..., page_size: _Optional[int] = ..., page_token: _Optional[str] = ...) -> None: ...

class MatchSummary(_message.Message):
    __slots__ = ("match_id", "game", "seed", "seats", "status", "version", "created_ms", "touched_ms", "finished_ms", "returns", "chosen_seed")
    MATCH_ID_FIELD_NUMBER: _ClassVar[int]
    GAME_FIELD_NUMBER: _ClassVar[int]
    SEED_FIELD_NUMBER: _ClassVar[int]
    SEATS_FIELD_NUMBER: _ClassVar[int]
    STATUS_FIELD_NUMBER: _ClassVar[int]
    VERSION_FIELD_NUMBER: _ClassVar[int]
    CREATED_MS_FIELD_NUMBER: _ClassVar[int]
    TOUCHED_MS_FIELD_NUMBER: _ClassVar[int]
    FINISHED_MS_FIELD_NUMBER: _ClassVar[int]
    RETURNS_FIELD_NUMBER: _ClassVar[int]
    CHOSEN_SEED_FIELD_NUMBER: _ClassVar[int]
    match_id: str
    game: str
    seed: int
    seats: _containers.RepeatedScalarFieldContainer[str]
    status: MatchStatus
    version: int
    created_ms: int
    touched_ms: int
    finished_ms: int
    returns: _containers.RepeatedScalarFieldContainer[float]
    chosen_seed: bool
    def __init__(self, match_id: _Optional[str] = ..., game: _Optional[str] = ..., seed: _Optional[int] = ..., seats: _Optional[_Iterable[str]] = ..., status: _Optional[_Union[MatchStatus, str]] = ..., version: _Optional[int] = ..., created_ms: _Optional[int] = ..., touched_ms: _Optional[int] = ..., finished_ms: _Optional[int] = ..., returns: _Optional[_Iterable[float]] = ..., chosen_seed: _Optional[bool] = ...) -> None: ...

class ListMatchesResponse(_message.Message):
    __slots__ = ("matches", "next_page_token", "unreadable_match_ids")
    MATCHES_FIELD_NUMBER: _ClassVar[int]
    NEXT_PAGE_TOKEN_FIELD_NUMBER: _ClassVar[int]
    UNREADABLE_MATCH_IDS_FIELD_NUMBER: _ClassVar[int]
    matches: _containers.RepeatedCompositeFieldContainer[MatchSummary]
    next_page_token: str
    unreadable_match_ids: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, matches: _Optional[_Iterable[_Union[MatchSummary, _Mapping]]] = ..., next_page_token: _Optional[str] = ..., unreadable_match_ids: _Optional[_Iterable[str]] = ...) -> None: ...

class GetReplayRequest(_message.Message):
    __slots__ = ("match_id", "from_version", "page_size")
    MATCH_ID_FIELD_NUMBER: _ClassVar[int]
    FROM_VERSION_FIELD_NUMBER: _ClassVar[int]
    PAGE_SIZE_FIELD_NUMBER: _ClassVar[int]
    match_id: str
    from_version: int
    page_size: int
    def __init__(self, match_id: _Optional[str] = ..., from_version: _Optional[int] = ..., page_size: _Optional[int] = ...) -> None: ...

class ReplayEntry(_message.Message):
    __slots__ = ("player", "action", "text")
    PLAYER_FIELD_NUMBER: _ClassVar[int]
    ACTION_FIELD_NUMBER: _ClassVar[int]
    TEXT_FIELD_NUMBER: _ClassVar[int]
    player: int
    action: int
    text: str
    def __init__(self, player: _Optional[int] = ..., action: _Optional[int] = ..., text: _Optional[str] = ...) -> None: ...

class ReplayStep(_message.Message):
    __slots__ = ("version", "actor", "entries", "spectator_view_json", "spectator_view_patch")
    VERSION_FIELD_NUMBER: _ClassVar[int]
    ACTOR_FIELD_NUMBER: _ClassVar[int]
    ENTRIES_FIELD_NUMBER: _ClassVar[int]
    SPECTATOR_VIEW_JSON_FIELD_NUMBER: _ClassVar[int]
    SPECTATOR_VIEW_PATCH_FIELD_NUMBER: _ClassVar[int]
    version: int
    actor: int
    entries: _containers.RepeatedCompositeFieldContainer[ReplayEntry]
    spectator_view_json: str
    spectator_view_patch: str
    def __init__(self, version: _Optional[int] = ..., actor: _Optional[int] = ..., entries: _Optional[_Iterable[_Union[ReplayEntry, _Mapping]]] = ..., spectator_view_json: _Optional[str] = ..., spectator_view_patch: _Optional[str] = ...) -> None: ...

class Replay(_message.Message):
    __slots__ = ("match", "revealed", "steps", "next_version")
    MATCH_FIELD_NUMBER: _ClassVar[int]
    REVEALED_FIELD_NUMBER: _ClassVar[int]
    STEPS_FIELD_NUMBER: _ClassVar[int]
    NEXT_VERSION_FIELD_NUMBER: _ClassVar[int]
    match: MatchSummary
    revealed: bool
    steps: _containers.RepeatedCompositeFieldContainer[ReplayStep]
    next_version: int
    def __init__(self, match: _Optional[_Union[MatchSummary, _Mapping]] = ..., revealed: _Optional[bool] = ..., steps: _Optional[_Iterable[_Union[ReplayStep, _Mapping]]] = ..., next_version: _Optional[int] = ...) -> None: ...

class RegisterBotRequest(_message.Message):
    __slots__ = ("name", "games")
    NAME_FIELD_NUMBER: _ClassVar[int]
    GAMES_FIELD_NUMBER: _ClassVar[int]
    name: str
    games: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, name: _Optional[str] = ..., games: _Optional[_Iterable[str]] = ...) -> None: ...

class RegisterBotResponse(_message.Message):
    __slots__ = ("name", "bot_token", "games")
    NAME_FIELD_NUMBER: _ClassVar[int]
    BOT_TOKEN_FIELD_NUMBER: _ClassVar[int]
    GAMES_FIELD_NUMBER: _ClassVar[int]
    name: str
    bot_token: str
    games: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, name: _Optional[str] = ..., bot_token: _Optional[str] = ..., games: _Optional[_Iterable[str]] = ...) -> None: ...

class RetireBotRequest(_message.Message):
    __slots__ = ("name",)
    NAME_FIELD_NUMBER: _ClassVar[int]
    name: str
    def __init__(self, name: _Optional[str] = ...) -> None: ...

class RetireBotResponse(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class EventsRequest(_message.Message):
    __slots__ = ("name", "max_games")
    NAME_FIELD_NUMBER: _ClassVar[int]
    MAX_GAMES_FIELD_NUMBER: _ClassVar[int]
    name: str
    max_games: int
    def __init__(self, name: _Optional[str] = ..., max_games: _Optional[int] = ...) -> None: ...

class LadderEvent(_message.Message):
    __slots__ = ("kind", "game", "seats", "move_ms", "paused_ms", "forfeits_in_a_row")
    KIND_FIELD_NUMBER: _ClassVar[int]
    GAME_FIELD_NUMBER: _ClassVar[int]
    SEATS_FIELD_NUMBER: _ClassVar[int]
    MOVE_MS_FIELD_NUMBER: _ClassVar[int]
    PAUSED_MS_FIELD_NUMBER: _ClassVar[int]
    FORFEITS_IN_A_ROW_FIELD_NUMBER: _ClassVar[int]
    kind: LadderEventKind
    game: LadderGameSummary
    seats: _containers.RepeatedCompositeFieldContainer[LadderSeat]
    move_ms: int
    paused_ms: int
    forfeits_in_a_row: int
    def __init__(self, kind: _Optional[_Union[LadderEventKind, str]] = ..., game: _Optional[_Union[LadderGameSummary, _Mapping]] = ..., seats: _Optional[_Iterable[_Union[LadderSeat, _Mapping]]] = ..., move_ms: _Optional[int] = ..., paused_ms: _Optional[int] = ..., forfeits_in_a_row: _Optional[int] = ...) -> None: ...

class LadderSeat(_message.Message):
    __slots__ = ("seat", "seat_token")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    SEAT_TOKEN_FIELD_NUMBER: _ClassVar[int]
    seat: int
    seat_token: str
    def __init__(self, seat: _Optional[int] = ..., seat_token: _Optional[str] = ...) -> None: ...

class LadderGameSummary(_message.Message):
    __slots__ = ("match_id", "game", "set", "bots", "live", "returns", "forfeits", "started_ms", "finished_ms")
    MATCH_ID_FIELD_NUMBER: _ClassVar[int]
    GAME_FIELD_NUMBER: _ClassVar[int]
    SET_FIELD_NUMBER: _ClassVar[int]
    BOTS_FIELD_NUMBER: _ClassVar[int]
    LIVE_FIELD_NUMBER: _ClassVar[int]
    RETURNS_FIELD_NUMBER: _ClassVar[int]
    FORFEITS_FIELD_NUMBER: _ClassVar[int]
    STARTED_MS_FIELD_NUMBER: _ClassVar[int]
    FINISHED_MS_FIELD_NUMBER: _ClassVar[int]
    match_id: str
    game: str
    set: int
    bots: _containers.RepeatedScalarFieldContainer[str]
    live: bool
    returns: _containers.RepeatedScalarFieldContainer[float]
    forfeits: _containers.RepeatedScalarFieldContainer[bool]
    started_ms: int
    finished_ms: int
    def __init__(self, match_id: _Optional[str] = ..., game: _Optional[str] = ..., set: _Optional[int] = ..., bots: _Optional[_Iterable[str]] = ..., live: _Optional[bool] = ..., returns: _Optional[_Iterable[float]] = ..., forfeits: _Optional[_Iterable[bool]] = ..., started_ms: _Optional[int] = ..., finished_ms: _Optional[int] = ...) -> None: ...

class ListLaddersRequest(_message.Message):
    __slots__ = ("page_size", "page_token")
    PAGE_SIZE_FIELD_NUMBER: _ClassVar[int]
    PAGE_TOKEN_FIELD_NUMBER: _ClassVar[int]
    page_size: int
    page_token: str
    def __init__(self, page_size: _Optional[int] = ..., page_token: _Optional[str] = ...) -> None: ...

class LadderInfo(_message.Message):
    __slots__ = ("game", "bots", "connected", "games", "live")
    GAME_FIELD_NUMBER: _ClassVar[int]
    BOTS_FIELD_NUMBER: _ClassVar[int]
    CONNECTED_FIELD_NUMBER: _ClassVar[int]
    GAMES_FIELD_NUMBER: _ClassVar[int]
    LIVE_FIELD_NUMBER: _ClassVar[int]
    game: str
    bots: int
    connected: int
    games: int
    live: int
    def __init__(self, game: _Optional[str] = ..., bots: _Optional[int] = ..., connected: _Optional[int] = ..., games: _Optional[int] = ..., live: _Optional[int] = ...) -> None: ...

class ListLaddersResponse(_message.Message):
    __slots__ = ("ladders", "house_bots", "next_page_token")
    LADDERS_FIELD_NUMBER: _ClassVar[int]
    HOUSE_BOTS_FIELD_NUMBER: _ClassVar[int]
    NEXT_PAGE_TOKEN_FIELD_NUMBER: _ClassVar[int]
    ladders: _containers.RepeatedCompositeFieldContainer[LadderInfo]
    house_bots: _containers.RepeatedScalarFieldContainer[str]
    next_page_token: str
    def __init__(self, ladders: _Optional[_Iterable[_Union[LadderInfo, _Mapping]]] = ..., house_bots: _Optional[_Iterable[str]] = ..., next_page_token: _Optional[str] = ...) -> None: ...

class GetLeaderboardRequest(_message.Message):
    __slots__ = ("game",)
    GAME_FIELD_NUMBER: _ClassVar[int]
    game: str
    def __init__(self, game: _Optional[str] = ...) -> None: ...

class LadderStanding(_message.Message):
    __slots__ = ("bot", "house", "connected", "retired", "rating", "rating_low", "rating_high", "return_rating", "return_low", "return_high", "games", "wins", "forfeits", "exploitability")
    BOT_FIELD_NUMBER: _ClassVar[int]
    HOUSE_FIELD_NUMBER: _ClassVar[int]
    CONNECTED_FIELD_NUMBER: _ClassVar[int]
    RETIRED_FIELD_NUMBER: _ClassVar[int]
    RATING_FIELD_NUMBER: _ClassVar[int]
    RATING_LOW_FIELD_NUMBER: _ClassVar[int]
    RATING_HIGH_FIELD_NUMBER: _ClassVar[int]
    RETURN_RATING_FIELD_NUMBER: _ClassVar[int]
    RETURN_LOW_FIELD_NUMBER: _ClassVar[int]
    RETURN_HIGH_FIELD_NUMBER: _ClassVar[int]
    GAMES_FIELD_NUMBER: _ClassVar[int]
    WINS_FIELD_NUMBER: _ClassVar[int]
    FORFEITS_FIELD_NUMBER: _ClassVar[int]
    EXPLOITABILITY_FIELD_NUMBER: _ClassVar[int]
    bot: str
    house: bool
    connected: bool
    retired: bool
    rating: float
    rating_low: float
    rating_high: float
    return_rating: float
    return_low: float
    return_high: float
    games: int
    wins: float
    forfeits: int
    exploitability: ExploitabilityBound
    def __init__(self, bot: _Optional[str] = ..., house: _Optional[bool] = ..., connected: _Optional[bool] = ..., retired: _Optional[bool] = ..., rating: _Optional[float] = ..., rating_low: _Optional[float] = ..., rating_high: _Optional[float] = ..., return_rating: _Optional[float] = ..., return_low: _Optional[float] = ..., return_high: _Optional[float] = ..., games: _Optional[int] = ..., wins: _Optional[float] = ..., forfeits: _Optional[int] = ..., exploitability: _Optional[_Union[ExploitabilityBound, _Mapping]] = ...) -> None: ...

class ExploitabilityBound(_message.Message):
    __slots__ = ("value", "low", "high", "games", "method", "command")
    VALUE_FIELD_NUMBER: _ClassVar[int]
    LOW_FIELD_NUMBER: _ClassVar[int]
    HIGH_FIELD_NUMBER: _ClassVar[int]
    GAMES_FIELD_NUMBER: _ClassVar[int]
    METHOD_FIELD_NUMBER: _ClassVar[int]
    COMMAND_FIELD_NUMBER: _ClassVar[int]
    value: float
    low: float
    high: float
    games: int
    method: str
    command: str
    def __init__(self, value: _Optional[float] = ..., low: _Optional[float] = ..., high: _Optional[float] = ..., games: _Optional[int] = ..., method: _Optional[str] = ..., command: _Optional[str] = ...) -> None: ...

class Leaderboard(_message.Message):
    __slots__ = ("game", "anchor", "standings", "games")
    GAME_FIELD_NUMBER: _ClassVar[int]
    ANCHOR_FIELD_NUMBER: _ClassVar[int]
    STANDINGS_FIELD_NUMBER: _ClassVar[int]
    GAMES_FIELD_NUMBER: _ClassVar[int]
    game: str
    anchor: str
    standings: _containers.RepeatedCompositeFieldContainer[LadderStanding]
    games: int
    def __init__(self, game: _Optional[str] = ..., anchor: _Optional[str] = ..., standings: _Optional[_Iterable[_Union[LadderStanding, _Mapping]]] = ..., games: _Optional[int] = ...) -> None: ...

class GetRatingHistoryRequest(_message.Message):
    __slots__ = ("game", "bot", "points")
    GAME_FIELD_NUMBER: _ClassVar[int]
    BOT_FIELD_NUMBER: _ClassVar[int]
    POINTS_FIELD_NUMBER: _ClassVar[int]
    game: str
    bot: str
    points: int
    def __init__(self, game: _Optional[str] = ..., bot: _Optional[str] = ..., points: _Optional[int] = ...) -> None: ...

class RatingPoint(_message.Message):
    __slots__ = ("games", "rating", "rating_low", "rating_high", "bot_games")
    GAMES_FIELD_NUMBER: _ClassVar[int]
    RATING_FIELD_NUMBER: _ClassVar[int]
    RATING_LOW_FIELD_NUMBER: _ClassVar[int]
    RATING_HIGH_FIELD_NUMBER: _ClassVar[int]
    BOT_GAMES_FIELD_NUMBER: _ClassVar[int]
    games: int
    rating: float
    rating_low: float
    rating_high: float
    bot_games: int
    def __init__(self, games: _Optional[int] = ..., rating: _Optional[float] = ..., rating_low: _Optional[float] = ..., rating_high: _Optional[float] = ..., bot_games: _Optional[int] = ...) -> None: ...

class RatingHistory(_message.Message):
    __slots__ = ("game", "bot", "points")
    GAME_FIELD_NUMBER: _ClassVar[int]
    BOT_FIELD_NUMBER: _ClassVar[int]
    POINTS_FIELD_NUMBER: _ClassVar[int]
    game: str
    bot: str
    points: _containers.RepeatedCompositeFieldContainer[RatingPoint]
    def __init__(self, game: _Optional[str] = ..., bot: _Optional[str] = ..., points: _Optional[_Iterable[_Union[RatingPoint, _Mapping]]] = ...) -> None: ...

class ListLadderGamesRequest(_message.Message):
    __slots__ = ("bot", "game", "page_size", "page_token")
    BOT_FIELD_NUMBER: _ClassVar[int]
    GAME_FIELD_NUMBER: _ClassVar[int]
    PAGE_SIZE_FIELD_NUMBER: _ClassVar[int]
    PAGE_TOKEN_FIELD_NUMBER: _ClassVar[int]
    bot: str
    game: str
    page_size: int
    page_token: str
    def __init__(self, bot: _Optional[str] = ..., game: _Optional[str] = ..., page_size: _Optional[int] = ..., page_token: _Optional[str] = ...) -> None: ...

class ListLadderGamesResponse(_message.Message):
    __slots__ = ("games", "next_page_token")
    GAMES_FIELD_NUMBER: _ClassVar[int]
    NEXT_PAGE_TOKEN_FIELD_NUMBER: _ClassVar[int]
    games: _containers.RepeatedCompositeFieldContainer[LadderGameSummary]
    next_page_token: str
    def __init__(self, games: _Optional[_Iterable[_Union[LadderGameSummary, _Mapping]]] = ..., next_page_token: _Optional[str] = ...) -> None: ...
