/**
 * The inbox's datasource, schema migrations, transactions and start-up checks (two-phase commit).
 */
package io.github.jakartainbox.inbox.database;
