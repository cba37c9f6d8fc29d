-- 0002_create_completeness: how many events never reached the database, or were altered, by kind and reason
-- (as the SQLite store's completeness table after its 0007). Counts only grow.

CREATE TABLE completeness (
    kind       text   COLLATE "C" NOT NULL CHECK (kind IN ('dropped', 'rejected', 'altered')),
    reason     text   COLLATE "C" NOT NULL,
    count      bigint NOT NULL,
    updated_ms bigint NOT NULL,
    PRIMARY KEY (kind, reason)
);
