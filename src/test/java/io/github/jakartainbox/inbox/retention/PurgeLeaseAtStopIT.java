package io.github.jakartainbox.inbox.retention;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.jakartainbox.testing.Db;
import io.github.jakartainbox.testing.Deployments;
import io.github.jakartainbox.testing.probes.OutageDuringPurgeTask;
import io.github.jakartainbox.testing.probes.PurgeTimerOff;
import org.eclipse.microprofile.config.spi.ConfigSource;
import org.jboss.arquillian.container.test.api.Deployer;
import org.jboss.arquillian.container.test.api.Deployment;
import org.jboss.arquillian.container.test.api.OperateOnDeployment;
import org.jboss.arquillian.container.test.api.RunAsClient;
import org.jboss.arquillian.junit5.ArquillianExtension;
import org.jboss.arquillian.test.api.ArquillianResource;
import org.jboss.shrinkwrap.api.spec.WebArchive;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * A purge run cut by a database outage cannot give its lease back; when the application stops before its next run,
 * the stop gives it back (the database answers again by then), so no server's purge waits for the lease's expiry
 * ({@code inbox.purge.lease}, PT10M), as a test class deployed after an outage test would. The timer
 * is off in this deployment ({@link PurgeTimerOff}): its next run would give the lease back itself.
 */
@ExtendWith(ArquillianExtension.class)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class PurgeLeaseAtStopIT {

    private static final String APP = "purge-lease-at-stop";
    private static final String DB_NAME = System.getenv().getOrDefault("DB_NAME", "billing");
    private static final String OWNER = "SELECT owner FROM inbox_purge_state";

    @ArquillianResource
    Deployer deployer;

    @Deployment(name = APP, managed = false)
    static WebArchive deployment() {
        return Deployments.billingWithProbes().addAsServiceProvider(ConfigSource.class, PurgeTimerOff.class);
    }

    @Test
    @Order(1)
    @RunAsClient
    void deploy() {
        deployer.deploy(APP);
    }

    @Test
    @Order(2)
    @OperateOnDeployment(APP)
    void aRunCutByAnOutageKeepsItsLease() throws Exception {
        assertTrue(OutageDuringPurgeTask.cutAPurgeRunByAnOutage(DB_NAME), "a purge run met the outage");
        assertNotNull(Db.lazy().text(OWNER), "the cut run's lease is still taken: the database refused its release");
    }

    @Test
    @Order(3)
    @RunAsClient
    void theApplicationsStopGivesItBack() {
        deployer.undeploy(APP);
        Db db = Db.overJdbc(DB_NAME);
        assertEquals(null, db.text(OWNER), "no lease left once the application stopped: "
                + db.text("SELECT concat(owner, ' until ', leased_until, ', last error: ', last_error) "
                + "FROM inbox_purge_state"));
        assertEquals(1, db.number("SELECT count(*) FROM inbox_purge_state WHERE last_error LIKE '%test%'"),
                "the cut run's outcome was recorded as it gave the lease back");
    }
}
