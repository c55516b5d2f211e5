package io.github.jakartainbox.testing;

import jakarta.interceptor.InvocationContext;
import java.lang.reflect.Constructor;
import java.lang.reflect.Method;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * An intercepted call for unit tests of interceptors' logic without a container: a target, its method and the
 * parameters (which the interceptor may replace); {@link #proceed} counts the method's runs and does what the test's
 * body says with the parameters as they are then.
 */
public class FakeInvocation implements InvocationContext {

    /** What the intercepted method does. */
    public interface Body {
        /**
         * @param parameters the parameters as the interceptor left them
         * @return the method's result
         * @throws Exception what the method throws
         */
        Object run(Object[] parameters) throws Exception;
    }

    /** How many times the method ran. */
    public final AtomicInteger runs = new AtomicInteger();
    private final Object target;
    private final Method method;
    private final Body body;
    private Object[] parameters;

    /**
     * @param target     the bean
     * @param method     its intercepted method
     * @param parameters the call's parameters
     * @param body       what the method does
     */
    public FakeInvocation(Object target, Method method, Object[] parameters, Body body) {
        this.target = target;
        this.method = method;
        this.parameters = parameters;
        this.body = body;
    }

    /**
     * @return the public method {@code name} of {@code type} with those parameter types
     * @throws IllegalStateException when it has none
     */
    public static Method method(Class<?> type, String name, Class<?>... parameterTypes) {
        try {
            return type.getMethod(name, parameterTypes);
        } catch (NoSuchMethodException e) {
            throw new IllegalStateException(e);
        }
    }

    @Override
    public Object getTarget() {
        return target;
    }

    @Override
    public Object getTimer() {
        return null;
    }

    @Override
    public Method getMethod() {
        return method;
    }

    @Override
    public Constructor<?> getConstructor() {
        return null;
    }

    @Override
    public Object[] getParameters() {
        return parameters;
    }

    @Override
    public void setParameters(Object[] parameters) {
        this.parameters = parameters;
    }

    @Override
    public Map<String, Object> getContextData() {
        return new HashMap<>();
    }

    @Override
    public Object proceed() throws Exception {
        runs.incrementAndGet();
        return body.run(parameters);
    }
}
