/* The pod sandbox ("pause") container of the offline kind node image: hold the pod's namespaces,
 * reap orphaned children (it is PID 1 when the pod shares its PID namespace), exit on SIGINT/SIGTERM.
 * Built static with `gcc -Os -static` by hack/kind-node-image.sh. */
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

static void on_stop(int sig) { (void)sig; _exit(0); }
static void on_child(int sig) { (void)sig; while (waitpid(-1, NULL, WNOHANG) > 0) {} }

int main(void) {
  struct sigaction stop = {0}, child = {0};
  stop.sa_handler = on_stop;
  sigaction(SIGINT, &stop, NULL);
  sigaction(SIGTERM, &stop, NULL);
  child.sa_handler = on_child;
  child.sa_flags = SA_NOCLDSTOP | SA_RESTART;
  sigaction(SIGCHLD, &child, NULL);
  for (;;) pause();
}
