package io.github.jakartainbox.bench;

import java.util.Arrays;
import java.util.List;

/** The measured iterations of one figure: minimum, median and maximum. */
public record Spread(double min, double median, double max, int n) {

    public static Spread of(List<Double> values) {
        double[] sorted = values.stream().mapToDouble(Double::doubleValue).sorted().toArray();
        if (sorted.length == 0) {
            return new Spread(Double.NaN, Double.NaN, Double.NaN, 0);
        }
        int n = sorted.length;
        double median = n % 2 == 1 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
        return new Spread(sorted[0], median, sorted[n - 1], n);
    }

    /** Percentile (nearest rank) of raw samples, e.g. latencies. */
    public static double percentile(long[] samples, double p) {
        if (samples.length == 0) {
            return Double.NaN;
        }
        long[] sorted = samples.clone();
        Arrays.sort(sorted);
        int rank = (int) Math.ceil(p / 100.0 * sorted.length);
        return sorted[Math.max(0, Math.min(sorted.length - 1, rank - 1))];
    }

    /** "1,234 (1,100–1,300)" for operations per second. */
    public String rate() {
        return String.format("%,.0f (%,.0f–%,.0f)", median, min, max);
    }
}
