-- Schema 5: what an index run needs to leave an unchanged file unread.
-- found_*: what discovery found of the file by itself (its path and its
-- first lines), before --map and --hostfile: node, rank, and kind (0 a
-- log, 1 a host log, 2 text that is a log only because --log named it;
-- NULL: not recorded, read the head again).  ctime: the status change
-- time, which setting the mtime back moves.  head: for a file written
-- within a few seconds of being read (its times may not show a rewrite
-- in the same tick), a hash of its size and its first and last 4 KiB,
-- compared before it is taken as unchanged; NULL for a settled file.
ALTER TABLE files ADD COLUMN found_node TEXT;
ALTER TABLE files ADD COLUMN found_rank INTEGER;
ALTER TABLE files ADD COLUMN found_kind INTEGER;
ALTER TABLE files ADD COLUMN ctime REAL;
ALTER TABLE files ADD COLUMN head INTEGER;
