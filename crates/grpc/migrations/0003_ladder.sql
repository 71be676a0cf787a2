-- The bot ladder: registered bots (a token's SHA-256, never the token) and every ladder game,
-- each a stored match, with the bots at its seats and, once it ended, its returns and which
-- seats forfeited. A game whose finished_ms is null was being played when the server stopped:
-- the next start ends it (its match expired) and drops its row.
CREATE TABLE ladder_bots (
    name TEXT PRIMARY KEY,
    token_sha256 TEXT NOT NULL,
    games TEXT NOT NULL,
    retired BIGINT NOT NULL DEFAULT 0,
    created_ms BIGINT NOT NULL
);

CREATE TABLE ladder_games (
    match_id TEXT PRIMARY KEY,
    game TEXT NOT NULL,
    set_number BIGINT NOT NULL,
    bots TEXT NOT NULL,
    returns TEXT,
    forfeits TEXT,
    started_ms BIGINT NOT NULL,
    finished_ms BIGINT
);

CREATE INDEX ladder_games_by_game ON ladder_games (game, finished_ms);
