package io.github.jakartainbox.billing.web;

import jakarta.ws.rs.ApplicationPath;
import jakarta.ws.rs.core.Application;

/** REST resources of the billing service, under {@code /billing/api}. */
@ApplicationPath("/api")
public class BillingApplication extends Application {
}
