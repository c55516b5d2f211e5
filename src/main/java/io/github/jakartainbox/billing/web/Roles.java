package io.github.jakartainbox.billing.web;

/**
 * The security roles of the billing service's REST API. Open Liberty maps a role to the user-registry group of
 * the same name when the server configures no {@code <application-bnd>}; the example's {@code server.xml}
 * defines both groups in a basic registry.
 */
public final class Roles {

    /** Reads invoices, inbox figures and dead letters. */
    public static final String READER = "billing-reader";
    /** Re-drives or discards dead letters; an operator can read too. */
    public static final String OPERATOR = "billing-operator";

    private Roles() {
    }
}
