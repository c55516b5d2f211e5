package io.github.jakartainbox.it;

import io.github.jakartainbox.billing.SampleEvents;
import io.github.jakartainbox.inbox.UuidV7;
import java.io.File;
import org.jboss.shrinkwrap.api.ShrinkWrap;
import org.jboss.shrinkwrap.api.importer.ZipImporter;
import org.jboss.shrinkwrap.api.spec.WebArchive;

/** The archive Arquillian deploys: the packaged billing WAR as built, plus the test probes. */
public final class Deployments {

    private Deployments() {
    }

    public static WebArchive billingWithProbes() {
        File war = new File(System.getProperty("war.file", "target/billing.war"));
        return ShrinkWrap.create(ZipImporter.class, "billing.war").importFrom(war).as(WebArchive.class)
                .addPackage(Deployments.class.getPackage())
                .addClasses(SampleEvents.class, SampleEvents.Event.class, UuidV7.class);
    }
}
