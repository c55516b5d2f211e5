/**
 * Event ids and event months: their rules, and where a delivery's id is read from (payload field, Kafka header,
 * bean).
 */
package io.github.jakartainbox.inbox.eventid;
