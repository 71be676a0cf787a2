-- Cluster mode's roles (PostgreSQL only; harmless elsewhere).
-- cluster_instances.address: where the other servers reach a server (--cluster-advertise),
-- so that the ladder's calls can be forwarded to the server that runs it.
-- cluster_roles: a role one server of the cluster holds at a time (the ladder): its holder
-- and how many times it changed hands. A server takes a role whose holder's heartbeat is
-- older than the lease, raising the epoch, and the ladder's writes name the epoch they were
-- made under, so that a former holder that was paused cannot write past the new one.
-- cluster_secrets: a random secret the servers of one database share, sent with the calls
-- one server forwards to another (it vouches for the client address the call came from).
ALTER TABLE cluster_instances ADD COLUMN address TEXT;

CREATE TABLE cluster_roles (
    role TEXT PRIMARY KEY,
    instance TEXT,
    epoch BIGINT NOT NULL DEFAULT 0
);

INSERT INTO cluster_roles (role, instance, epoch) VALUES ('ladder', NULL, 0);

CREATE TABLE cluster_secrets (
    name TEXT PRIMARY KEY,
    value TEXT NOT NULL
);
