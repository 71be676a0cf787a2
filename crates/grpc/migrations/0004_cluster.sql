-- Several servers on one database (cluster mode, PostgreSQL only; harmless elsewhere).
-- revision: the number of writes a match has had. A write states the revision it was made
-- on and is refused if another server wrote since, so no history forks.
-- owner, owner_epoch: the server that plays the match's bots and expires it, and how many
-- times the match changed owner. A server that takes a match over raises the epoch, so a
-- former owner that was paused cannot write past it.
-- cluster_instances: each server's heartbeat (database clock); a server whose heartbeat is
-- older than the lease has its matches taken over by the others.
ALTER TABLE matches ADD COLUMN revision BIGINT NOT NULL DEFAULT 0;
ALTER TABLE matches ADD COLUMN owner TEXT;
ALTER TABLE matches ADD COLUMN owner_epoch BIGINT NOT NULL DEFAULT 0;

CREATE INDEX matches_by_owner ON matches (owner, status);

CREATE TABLE cluster_instances (
    id TEXT PRIMARY KEY,
    started_ms BIGINT NOT NULL,
    heartbeat_ms BIGINT NOT NULL
);
