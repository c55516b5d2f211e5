/**
 * What made an attempt fail and what to do next: retry, wait out an outage, or dead-letter.
 */
package io.github.jakartainbox.inbox.failure;
