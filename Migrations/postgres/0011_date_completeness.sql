-- 0011_date_completeness: each loss is counted on the UTC day it happened, so that a report shows the losses of its
-- own window (as the SQLite store's 0020; docs/sql.md, "completeness").
--
-- day_ms joins the key: the start of the UTC day (ms since the Unix epoch) of the loss. A line refused on receipt,
-- an event a sink could not write, a value cut or redacted whole: the day the store counted it (the time it
-- received the line). A device's loss record (`alstats_loss`): the day of the record's own time. The report adds
-- the days that begin in its window.
-- The counts kept before this migration have no day: they move whole to the UTC day this migration runs on.
-- Applied again (a database whose ledger was rewound), it changes nothing.

ALTER TABLE completeness ADD COLUMN IF NOT EXISTS day_ms bigint;

UPDATE completeness SET day_ms = (floor(extract(epoch FROM now()) / 86400) * 86400000)::bigint WHERE day_ms IS NULL;

ALTER TABLE completeness ALTER COLUMN day_ms SET NOT NULL;

ALTER TABLE completeness DROP CONSTRAINT completeness_pkey;

ALTER TABLE completeness ADD PRIMARY KEY (kind, reason, day_ms);
