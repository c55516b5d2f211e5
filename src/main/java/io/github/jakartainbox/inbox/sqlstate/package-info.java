/**
 * How a database error reads (its exception types, its SQLState), below the API's {@code DatabaseFailures} and the
 * retry policy's failure kinds.
 */
package io.github.jakartainbox.inbox.sqlstate;
