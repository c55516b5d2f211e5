-- jakarta-inbox schema, version 4: the index of version 1 is covered by the one of version 3.
DROP INDEX CONCURRENTLY IF EXISTS inbox_processed_at_idx;
