-- Whether the match's creator chose its seed (a practice deal, announced to every seat) or
-- the server drew a secret one. Matches stored before this column existed are marked as
-- chosen: their seeds may have come from clients, so no match claims a secrecy it may lack.
ALTER TABLE matches ADD COLUMN chosen_seed BIGINT NOT NULL DEFAULT 1;

-- One row the server rewrites to prove the store takes writes: at start (a store that
-- cannot be written is refused) and while a failed commit keeps the server NOT_SERVING.
CREATE TABLE store_probe (
    id BIGINT PRIMARY KEY,
    probed_ms BIGINT NOT NULL
);
INSERT INTO store_probe (id, probed_ms) VALUES (1, 0);
