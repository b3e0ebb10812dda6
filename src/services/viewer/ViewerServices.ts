/**
 * Every service of the viewer, each built once and shared (the layer src/layers/Viewer.ts serves
 * the servlets on). Each servlet family's service brings what it needs.
 */
import { Layer } from "effect"
import { AnnotationFiles } from "./annotations/AnnotationFiles.ts"
import { DocumentAnnotations } from "./annotations/DocumentAnnotations.ts"
import { CompareResult } from "./comparing/CompareResult.ts"
import { TextDifferences } from "./comparing/TextDifferences.ts"
import { Composites } from "./composite/Composites.ts"
import { DocumentMetadata } from "./connector/DocumentMetadata.ts"
import { DocumentAccess } from "./documents/DocumentAccess.ts"
import { DocumentMerge } from "./documents/DocumentMerge.ts"
import { ViewerDocuments } from "./documents/ViewerDocuments.ts"
import { PageImages } from "./imaging/PageImages.ts"
import { ViewerMetrics } from "./metrics/ViewerMetrics.ts"
import { Monitoring } from "./monitoring/Monitoring.ts"
import { EditingOrders } from "./orders/EditingOrders.ts"
import { Printing } from "./printing/Printing.ts"
import { DocumentBookmarks } from "./reader/DocumentBookmarks.ts"
import { DocumentSearch } from "./reader/DocumentSearch.ts"
import { DocumentStates } from "./reader/DocumentStates.ts"
import { Sessions } from "./sessions/Sessions.ts"
import { DocumentStructure } from "./structure/DocumentStructure.ts"
import { TargetList } from "./targets/TargetList.ts"
import { Weather } from "./targets/Weather.ts"
import { TokenValidation } from "./tokens/TokenValidator.ts"

export const ViewerServices = Layer.mergeAll(
  DocumentAccess.Default,
  ViewerDocuments.Default,
  DocumentMerge.Default,
  CompareResult.Default,
  AnnotationFiles.Default,
  Composites.Default,
  DocumentMetadata.Default,
  DocumentStructure.Default,
  PageImages.Default,
  Sessions.Default,
  Weather.Default,
  TargetList.Default,
  ViewerMetrics.Default,
  Monitoring.Default,
  TokenValidation.Default,
  Printing.Default,
  DocumentSearch.Default,
  DocumentBookmarks.Default,
  DocumentStates.Default,
  DocumentAnnotations.Default,
  EditingOrders.Default,
  TextDifferences.Default
)
