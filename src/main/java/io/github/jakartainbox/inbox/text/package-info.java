/**
 * Text helpers the inbox applies to event data, public so that an application reads its events the same way: strict
 * UTF-8, strict JSON, printable quoting.
 */
package io.github.jakartainbox.inbox.text;
