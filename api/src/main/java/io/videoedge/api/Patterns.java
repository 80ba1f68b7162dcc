package io.videoedge.api;

/** Formats the CRD enforces at admission. */
final class Patterns {
  /** one-nio's size converter: bytes with an optional k, m or g suffix (64k, 4m). */
  static final String ONE_NIO_SIZE = "^[0-9]{1,12}[kKmMgG]?$";
  /** one-nio's time converter: a number with ms, s, m, h or d. */
  static final String ONE_NIO_TIME = "^[0-9]{1,9}(ms|s|m|h|d)$";
  /** A Kubernetes quantity as used for memory and disk (2Gi, 512Mi, 100G). */
  static final String K8S_QUANTITY = "^[0-9]{1,15}(\\.[0-9]+)?(Ki|Mi|Gi|Ti|Pi|k|M|G|T|P)?$";
  /** An absolute path of plain names (CEL rules also refuse '..' segments). */
  /** A positive count or a percentage from 1% to 100% (0 would never let a rollout start). */
  static final String MAX_UNAVAILABLE = "^([1-9][0-9]{0,5}|[1-9][0-9]?%|100%)$";
  static final String ABSOLUTE_PATH = "^(/[A-Za-z0-9_.+@-]+)+/?$";

  private Patterns() {
  }
}
