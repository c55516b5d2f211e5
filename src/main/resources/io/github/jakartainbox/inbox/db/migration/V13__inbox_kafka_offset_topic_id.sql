-- jakarta-inbox schema, version 13: each inbox-kafka offset row names the topic it belongs to by Kafka's topic id.
--
-- A topic deleted and made again under the same name is another topic: its offsets start at 0 again, and a row of
-- the old topic is no position in it. Kafka gives every topic a unique id (a Uuid, shown as 22 characters of
-- base64) when it is made; the channel writes it with each row and drops, at assignment, a row whose id is not the
-- topic's. Rows written before this version have none (NULL): see docs/kafka-connector.md, "Offsets kept with the
-- data", for the rule that applies to them.
ALTER TABLE inbox_kafka_offset ADD COLUMN IF NOT EXISTS topic_id text;
