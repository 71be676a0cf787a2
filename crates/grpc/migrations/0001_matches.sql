-- Durable matches: what a match is (game, parameters, seed, seats), its history (every
-- seat action and chance outcome, in order), and its seats' token hashes. Portable SQL: the
-- same file runs on SQLite and PostgreSQL.
CREATE TABLE matches (
    id TEXT PRIMARY KEY,
    game TEXT NOT NULL,
    parameters TEXT NOT NULL,
    seed BIGINT NOT NULL,
    seats TEXT NOT NULL,
    status TEXT NOT NULL,
    version BIGINT NOT NULL,
    held TEXT NOT NULL,
    final_returns TEXT,
    created_ms BIGINT NOT NULL,
    touched_ms BIGINT NOT NULL,
    finished_ms BIGINT
);

CREATE INDEX matches_by_status ON matches (status, created_ms);
CREATE INDEX matches_by_game ON matches (game, created_ms);

CREATE TABLE steps (
    match_id TEXT NOT NULL REFERENCES matches (id),
    idx BIGINT NOT NULL,
    version BIGINT NOT NULL,
    player BIGINT NOT NULL,
    action BIGINT NOT NULL,
    PRIMARY KEY (match_id, idx)
);

CREATE TABLE seat_tokens (
    match_id TEXT NOT NULL REFERENCES matches (id),
    seat BIGINT NOT NULL,
    token_sha256 TEXT NOT NULL,
    joined_ms BIGINT NOT NULL,
    PRIMARY KEY (match_id, seat)
);
