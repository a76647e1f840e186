package dev.shelly.console;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.shelly.agent.AgentEvent;
import dev.shelly.chats.Message;
import dev.shelly.chats.Role;
import dev.shelly.engine.Session;
import dev.shelly.engine.Turn;
import java.io.File;
import java.io.OutputStream;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.openqa.selenium.By;
import org.openqa.selenium.Dimension;
import org.openqa.selenium.JavascriptExecutor;
import org.openqa.selenium.NoAlertPresentException;
import org.openqa.selenium.OutputType;
import org.openqa.selenium.StaleElementReferenceException;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;
import org.openqa.selenium.support.ui.WebDriverWait;
import tools.jackson.databind.json.JsonMapper;

/**
 * The console in a real headless Chromium: a team's turn paused for approval shows its run tree
 * (the lead, both children, the tool calls and their results), hostile text stays text, Approve
 * finishes the turn, and a cut event stream resumes from its last event without a gap.
 */
@Timeout(90)
class ConsoleBrowserTest {
    private static final String CHROMIUM = "/usr/bin/chromium";
    private static final String CHROMEDRIVER = "/usr/bin/chromedriver";
    private static final String TOKEN = "browser-token-0123456789abcdef";

    private static Team team;
    private static Console console;
    private static ChromeDriver browser;

    @BeforeAll
    static void start() {
        assumeTrue(new File(CHROMIUM).canExecute() && new File(CHROMEDRIVER).canExecute(),
                "needs Debian's chromium and chromium-driver");
        team = new Team();
        console = Console.start(team.engine, Console.Options.builder().port(0).token(TOKEN).announce(null).build());
        ChromeDriverService service = new ChromeDriverService.Builder().usingDriverExecutable(new File(CHROMEDRIVER))
                .usingAnyFreePort().withSilent(true).withLogOutput(OutputStream.nullOutputStream()).build();
        ChromeOptions options = new ChromeOptions().setBinary(CHROMIUM);
        options.addArguments("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu",
                "--window-size=1280,1100");
        browser = new ChromeDriver(service, options);
    }

    @AfterAll
    static void stop() {
        if (browser != null) {
            browser.quit();
        }
        if (console != null) {
            console.close();
        }
        if (team != null) {
            team.close();
        }
    }

    private static WebDriverWait waitUpTo(int seconds) {
        WebDriverWait wait = new WebDriverWait(browser, Duration.ofSeconds(seconds), Duration.ofMillis(50));
        wait.ignoring(StaleElementReferenceException.class);
        return wait;
    }

    /** Runs checks on the page again when it was drawn anew under them. */
    private static void stable(Runnable checks) {
        for (int attempt = 0; ; attempt++) {
            try {
                checks.run();
                return;
            } catch (StaleElementReferenceException e) {
                if (attempt == 20) {
                    throw e;
                }
            }
        }
    }

    private static WebElement run(String agent) {
        return browser.findElement(By.cssSelector("#tree li.run[data-agent='" + agent + "']"));
    }

    private static String runState(String agent) {
        List<WebElement> found = browser.findElements(By.cssSelector("#tree li.run[data-agent='" + agent + "']"));
        return found.isEmpty() ? "" : found.getFirst().getDomAttribute("data-state");
    }

    @Test
    void aPausedTeamTurnIsShownApprovedInThePageAndFinishedWithHostileTextKeptAsText() throws Exception {
        Team.Started started = team.start();
        try (Session session = started.session()) {
            Turn paused = started.turn().get(30, TimeUnit.SECONDS);
            assertThat(paused.paused()).isTrue();

            browser.get(console.link());
            waitUpTo(15).until(d -> runState("writer").equals("waiting") && runState("researcher").equals("done"));
            // The fragment's token is taken and dropped from the address bar.
            assertThat(browser.getCurrentUrl()).doesNotContain(TOKEN);

            // The tree: the lead and both children under it, the tool calls with their results.
            stable(() -> {
                WebElement lead = run("lead");
                assertThat(lead.getDomAttribute("data-state")).isEqualTo("waiting");
                assertThat(lead.findElements(By.cssSelector("li.run"))).extracting(e -> e.getDomAttribute("data-agent"))
                        .containsExactlyInAnyOrder("researcher", "writer");
                WebElement fetch = run("researcher").findElement(By.cssSelector("li.tool[data-tool='fetch_page']"));
                assertThat(fetch.getDomAttribute("data-state")).isEqualTo("done");
                assertThat(fetch.findElement(By.cssSelector(".result")).getText()).isEqualTo(Team.HOSTILE_RESULT);
                assertThat(fetch.findElement(By.cssSelector(".args")).getText()).contains("javascript:window.__pwned='url'");
                WebElement publish = run("writer").findElement(By.cssSelector("li.tool[data-tool='publish']"));
                assertThat(publish.getDomAttribute("data-state")).isEqualTo("waiting");
                assertThat(publish.findElement(By.cssSelector(".args")).getText()).isEqualTo(Team.HOSTILE_ARGS);
                assertThat(lead.findElements(By.cssSelector(".model")).getFirst().getText()).contains(Team.MODEL)
                        .contains("in 1200 / out 300 tok");
                assertThat(browser.findElement(By.cssSelector("svg.chart rect.bar"))).isNotNull();

                // The decision, with its hostile arguments as text in the edit box.
                WebElement card = browser.findElement(By.cssSelector("#pending li[data-pending-id]"));
                assertThat(card.getText()).contains("writer wants to run publish");
                assertThat(card.findElement(By.cssSelector("textarea")).getDomProperty("value")).isEqualTo(Team.HOSTILE_ARGS);
            });
            assertNothingInjected();

            // What the person types survives the events that arrive meanwhile.
            stable(() -> browser.findElement(By.cssSelector("#pending input[aria-label='reason']")).sendKeys("not yet"));
            long seen = Long.parseLong(browser.findElement(By.id("stream")).getDomAttribute("data-last"));
            team.engine.events().publish(new AgentEvent.MessageAdded(new AgentEvent.Source("lead", null, 0,
                    lead(session), null, session.id()), Message.text("lead", Role.ASSISTANT, "still waiting")));
            waitUpTo(5).until(d -> Long.parseLong(d.findElement(By.id("stream")).getDomAttribute("data-last")) > seen);
            Thread.sleep(300); // the page fetches the session again after a message
            stable(() -> assertThat(browser.findElement(By.cssSelector("#pending input[aria-label='reason']"))
                    .getDomProperty("value")).isEqualTo("not yet"));

            Path shot = browser.getScreenshotAs(OutputType.FILE).toPath();
            Path kept = Path.of("target", "console-screenshots", "paused-turn.png");
            Files.createDirectories(kept.getParent());
            Files.copy(shot, kept, StandardCopyOption.REPLACE_EXISTING);
            assertThat(Files.size(kept)).isPositive();

            // Cut the event stream, approve while it is cut, and let the turn finish unseen.
            JavascriptExecutor js = browser;
            js.executeScript("window.shellyConsole.pause()");
            waitUpTo(5).until(d -> "offline".equals(d.findElement(By.id("status")).getDomAttribute("data-state")));
            long seenBefore = Long.parseLong(browser.findElement(By.id("stream")).getDomAttribute("data-last"));
            stable(() -> browser.findElement(By.cssSelector("#pending button.approve")).click());
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
            while (session.paused() || !session.chat().last().orElseThrow().text().equals("lead finished after 1 results")) {
                assertThat(System.nanoTime()).as("the approved turn finishes").isLessThan(deadline);
                Thread.sleep(20);
            }
            long serverSeq = serverSeq();
            assertThat(serverSeq).as("events flowed while the page was cut off").isGreaterThan(seenBefore);
            stable(() -> assertThat(runState("lead")).as("the page saw none of it").isEqualTo("waiting"));

            // Reconnect: the missed events arrive from Last-Event-ID, in order, none missing.
            js.executeScript("window.shellyConsole.resume()");
            waitUpTo(15).withMessage(() -> "the page shows " + browser.findElement(By.id("stream")).getDomAttribute("data-last")
                    + " of " + serverSeq + " events; runs " + browser.findElements(By.cssSelector("#tree li.run")).stream()
                    .map(e -> e.getDomAttribute("data-agent") + "=" + e.getDomAttribute("data-state")).toList())
                    .until(d -> Long.parseLong(d.findElement(By.id("stream")).getDomAttribute("data-last")) >= serverSeq
                    && runState("lead").equals("done") && runState("writer").equals("done"));
            stable(() -> {
                assertThat(browser.findElement(By.id("stream")).getDomAttribute("data-gaps")).isEqualTo("0");
                WebElement published = run("writer").findElement(By.cssSelector("li.tool[data-tool='publish']"));
                assertThat(published.getDomAttribute("data-state")).isEqualTo("done");
                assertThat(published.findElement(By.cssSelector(".result")).getText())
                        .isEqualTo("published: <script>window.__pwned='args'</script>");
            });
            waitUpTo(10).until(d -> d.findElements(By.cssSelector("#pending li[data-pending-id]")).isEmpty()
                    && d.findElement(By.id("conversation")).getText().contains("lead finished after 1 results"));
            assertNothingInjected();
            Files.copy(browser.getScreenshotAs(OutputType.FILE).toPath(), kept.resolveSibling("finished-turn.png"),
                    StandardCopyOption.REPLACE_EXISTING);

            // A narrow screen: one column, nothing wider than the window.
            browser.manage().window().setSize(new Dimension(420, 900));
            waitUpTo(5).until(d -> Boolean.TRUE.equals(js.executeScript(
                    "return document.documentElement.scrollWidth <= window.innerWidth")));
            Files.copy(browser.getScreenshotAs(OutputType.FILE).toPath(), kept.resolveSibling("narrow.png"),
                    StandardCopyOption.REPLACE_EXISTING);
        }
    }

    private static String lead(Session session) {
        return session.runs().stream().filter(r -> r.parentRunId() == null).findFirst().orElseThrow().runId();
    }

    /** No script ran, no element came from the hostile text, and no alert is open. */
    private static void assertNothingInjected() {
        JavascriptExecutor js = browser;
        assertThat(js.executeScript("return window.__pwned === undefined")).isEqualTo(true);
        assertThat(browser.findElements(By.cssSelector("img, a[href^='javascript'], iframe"))).isEmpty();
        assertThat(browser.findElements(By.tagName("script"))).hasSize(1);
        try {
            browser.switchTo().alert();
            throw new AssertionError("an alert is open");
        } catch (NoAlertPresentException expected) {
            // nothing ran
        }
    }

    private static long serverSeq() throws Exception {
        try (HttpClient http = HttpClient.newHttpClient()) {
            HttpResponse<String> r = http.send(HttpRequest.newBuilder(console.url().resolve("/api/sessions"))
                    .header("Authorization", "Bearer " + TOKEN).build(), HttpResponse.BodyHandlers.ofString());
            return JsonMapper.builder().build().readTree(r.body()).path("seq").asLong();
        }
    }
}
