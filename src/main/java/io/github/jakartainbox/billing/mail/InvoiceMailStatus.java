package io.github.jakartainbox.billing.mail;

import io.github.jakartainbox.billing.BillingMessage;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.persistence.EntityManager;
import jakarta.persistence.PersistenceContext;
import jakarta.transaction.Transactional;

/**
 * Records on the invoice why its mail was not sent, in a transaction of its own: the mailer's attempt rolls back and
 * its event is dead-lettered, but the invoice shows the reason ({@code mail_status} {@code failed} or
 * {@code uncertain}, {@code mail_error}) to the compensation query and the page.
 */
@ApplicationScoped
public class InvoiceMailStatus {

    @PersistenceContext(unitName = "billing")
    EntityManager em;

    @Inject
    InvoiceMailStatus self;

    /**
     * Best effort: a failure to record is logged, never thrown, so that it cannot turn a refused or uncertain mail
     * into a retried one.
     *
     * @param invoiceId the invoice
     * @param status    {@code failed} or {@code uncertain}
     * @param reason    the reason, with its message id
     * @param messageId the mail's Message-ID: an event of the invoice under another one mails nothing
     */
    void record(long invoiceId, String status, String reason, String messageId) {
        try {
            self.update(invoiceId, status, reason, messageId);
        } catch (RuntimeException e) {
            BillingMessage.BILLING0134W.log(String.valueOf(invoiceId), status, e.toString());
        }
    }

    /** The update itself, through the bean's proxy so that it runs in a new transaction. */
    @Transactional(Transactional.TxType.REQUIRES_NEW)
    public void update(long invoiceId, String status, String reason, String messageId) {
        em.createNativeQuery("UPDATE invoice SET mail_status = ?1, mail_error = ?2, mail_message_id = ?4 "
                + "WHERE id = ?3 AND mailed_at IS NULL").setParameter(1, status).setParameter(2, reason)
                .setParameter(3, invoiceId).setParameter(4, messageId).executeUpdate();
    }
}
